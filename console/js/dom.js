// Builds DOM nodes. Text always goes in as text nodes, never as HTML, so nothing the API returns
// (document content, names, error messages) can become markup or script.

/**
 * h('button', { class: 'primary', type: 'button', onclick: fn, 'aria-label': 'Copy' }, 'Copy')
 * Props: `class`, `text`, `on<event>` handlers, boolean props (true sets, false/null/undefined
 * skips), everything else as an attribute. Children: nodes, strings, numbers, arrays; null/false skipped.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  setProps(element, props);
  append(element, children);
  return element;
}

/** The same for SVG elements. */
export function svg(tag, props = {}, ...children) {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setProps(element, props);
  append(element, children);
  return element;
}

function setProps(element, props) {
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') element.textContent = String(value);
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? '' : String(value));
  }
}

export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

let idCounter = 0;
/** A page-unique id, for label/aria-describedby pairs. */
export function uid(prefix) {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}

/**
 * A labelled form control with a place for its error under it. Returns the wrapper, the control
 * and `setError(text)` (which also sets aria-invalid so the error is announced with the field).
 */
export function field(label, control, hint) {
  const id = control.id || uid('field');
  control.id = id;
  const errorId = `${id}-error`;
  const hintId = hint ? `${id}-hint` : null;
  const error = h('p', { class: 'field-error', id: errorId, hidden: true });
  control.setAttribute('aria-describedby', [hintId, errorId].filter(Boolean).join(' '));
  const wrapper = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    error,
  );
  // `text`: a string, or nodes for richer errors (the filter field marks a position).
  const setError = (text) => {
    const empty = !text || (Array.isArray(text) && text.length === 0);
    error.hidden = empty;
    replaceChildren(error, empty ? [] : text);
    if (!empty) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
    return error;
  };
  return { wrapper, control, error, setError };
}

/** A message box: `role="alert"` for failures (announced at once), `status` otherwise. */
export function notice(kind, ...children) {
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}

/** True for the error of a request cut short because the page was left or the user signed out. */
export function isAbort(error) {
  return error?.name === 'AbortError';
}

/**
 * Disables a button while `task` runs, so a slow request cannot be sent twice. A task cut short
 * by leaving the page ends quietly: there is nothing left to show its outcome in.
 */
export async function busy(button, task) {
  // A disabled button loses the focus; a keyboard user gets it back when the task ends.
  const hadFocus = document.activeElement === button;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await task();
  } catch (error) {
    if (!isAbort(error)) throw error;
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
    const focusLost = document.activeElement === document.body || document.activeElement === null;
    if (hadFocus && button.isConnected && focusLost) button.focus();
  }
}
