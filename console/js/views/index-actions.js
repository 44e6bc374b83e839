import { ApiError } from '../api.js';
import { confirmDialog } from '../dialog.js';
import { busy, field, h, notice, replaceChildren } from '../dom.js';
import { toast } from '../toast.js';
import { showFieldErrors } from './field-errors.js';

/** Rename, new tokens and delete; each asks first, delete asks for the index name. */
export function indexActionsSection({ api, record, signal, onChanged }) {
  const status = h('div', { class: 'form-status' });
  const fail = (error) => {
    if (!(error instanceof ApiError)) throw error;
    replaceChildren(status, notice('error', error.message));
  };

  const name = field(
    'New name',
    h('input', { type: 'text', value: record.name, autocomplete: 'off', spellcheck: 'false' }),
  );
  const renameButton = h('button', { type: 'submit', class: 'secondary' }, 'Rename');
  const renameForm = h('form', { class: 'inline-form', novalidate: true }, name.wrapper, renameButton);
  renameForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    name.setError('');
    replaceChildren(status);
    const newName = name.control.value.trim();
    const ok = await confirmDialog({
      title: 'Rename index',
      message: `Rename "${record.name}" to "${newName}"? Its endpoint and tokens stay the same.`,
      confirmLabel: 'Rename',
    });
    if (!ok) return;
    await busy(renameButton, async () => {
      try {
        await api.post(`/search/${record.id}/rename`, { name: newName });
        toast(`Renamed to ${newName}`);
        await onChanged();
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (showFieldErrors(error, { name: { label: 'Name', ...name } }).length > 0) fail(error);
        else name.control.focus();
      }
    });
  });

  const resetButton = h('button', { type: 'button', class: 'secondary' }, 'Reset tokens');
  resetButton.addEventListener('click', async () => {
    replaceChildren(status);
    const ok = await confirmDialog({
      title: 'Reset tokens',
      message:
        'Both tokens are replaced and the current ones stop working at once: every client that uses them must be updated.',
      confirmLabel: 'Reset tokens',
      danger: true,
    });
    if (!ok) return;
    await busy(resetButton, async () => {
      try {
        await api.post(`/search/${record.id}/reset-password`);
        toast('New tokens issued');
        await onChanged();
      } catch (error) {
        fail(error);
      }
    });
  });

  const deleteButton = h('button', { type: 'button', class: 'danger' }, 'Delete index');
  deleteButton.addEventListener('click', async () => {
    replaceChildren(status);
    const ok = await confirmDialog({
      title: 'Delete index',
      message: `This deletes "${record.name}" and all of its documents. It cannot be undone.`,
      confirmLabel: 'Delete index',
      danger: true,
      requireText: record.name,
    });
    if (!ok) return;
    await busy(deleteButton, async () => {
      try {
        await api.delete(`/search/${record.id}`);
        toast(`Index ${record.name} deleted`);
        // Someone who went elsewhere while it ran stays where they went.
        if (!signal?.aborted) location.hash = '#/indexes';
      } catch (error) {
        fail(error);
      }
    });
  });

  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'manage-heading' },
    h('h2', { id: 'manage-heading' }, 'Manage'),
    status,
    renameForm,
    h(
      'div',
      { class: 'manage-row' },
      h('div', {}, h('h3', {}, 'Tokens'), h('p', { class: 'hint' }, 'Issue a new read-write and read-only token.')),
      resetButton,
    ),
    h(
      'div',
      { class: 'manage-row danger-zone' },
      h('div', {}, h('h3', {}, 'Delete'), h('p', { class: 'hint' }, 'Remove the index and its documents.')),
      deleteButton,
    ),
  );
}
