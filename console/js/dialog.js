import { field, h, uid } from './dom.js';

/**
 * A modal confirmation. Resolves true when confirmed, false on Cancel or Escape. Focus moves into
 * the dialog, Tab cycles inside it, and returns to where it was when the dialog closes.
 * `requireText`: the confirm button stays disabled until exactly this text is typed.
 */
export function confirmDialog({ title, message, confirmLabel = 'Confirm', danger = false, requireText = null }) {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const titleId = uid('dialog-title');
    const confirm = h('button', { type: 'submit', class: danger ? 'danger' : 'primary' }, confirmLabel);
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    let typed = null;
    if (requireText !== null) {
      typed = field(
        `Type ${requireText} to confirm`,
        h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'confirm-text' }),
      );
      confirm.disabled = true;
      typed.control.addEventListener('input', () => {
        confirm.disabled = typed.control.value !== requireText;
      });
    }
    const form = h(
      'form',
      { method: 'dialog' },
      h('h2', { id: titleId }, title),
      h('p', {}, message),
      typed?.wrapper,
      h('div', { class: 'actions' }, cancel, confirm),
    );
    const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'dialog' }, form);

    let result = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      if (confirm.disabled) return;
      result = true;
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('keydown', (event) => trapTab(event, dialog));
    dialog.addEventListener('close', () => {
      dialog.remove();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    (typed ? typed.control : cancel).focus();
  });
}

/** Keeps Tab and Shift+Tab inside `container`, wrapping at both ends. */
export function trapTab(event, container) {
  if (event.key !== 'Tab') return;
  const focusable = [...container.querySelectorAll('button, input, select, textarea, a[href], [tabindex="0"]')].filter(
    (element) => !element.disabled && element.offsetParent !== null,
  );
  if (focusable.length === 0) return;
  const first = focusable[0];
  const last = focusable[focusable.length - 1];
  if (event.shiftKey && document.activeElement === first) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && document.activeElement === last) {
    event.preventDefault();
    first.focus();
  }
}
