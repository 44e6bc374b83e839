// Puts the API's validation errors next to the fields they are about.

import { ApiError } from '../api.js';
import { busy, notice, replaceChildren } from '../dom.js';

/** Which field an error code belongs to when the API gives no `details[].field`. */
const CODE_FIELDS = {
  index_name_taken: 'name',
  free_index_limit: 'type',
  plan_unavailable: 'type',
};

/**
 * `fields`: { apiFieldName: { label, setError } }. Shows each detail under its field (the summary
 * message for code-only errors) and returns the messages no field took, for a form-level notice.
 */
export function showFieldErrors(error, fields) {
  const messages = new Map();
  const add = (name, text) => messages.set(name, messages.has(name) ? `${messages.get(name)} ${text}` : text);
  for (const detail of error.details ?? []) {
    const name = detail.field;
    if (!name || !fields[name]) continue;
    const allowed = Array.isArray(detail.allowed) && detail.allowed.length > 0 ? `: ${detail.allowed.join(', ')}` : '';
    // Code-specific errors (plan_unavailable) say it better in their summary than in the detail.
    if (CODE_FIELDS[error.code] === name) add(name, `${error.message}.`);
    else add(name, `${fields[name].label} ${detail.message}${allowed}.`);
  }
  const fallback = CODE_FIELDS[error.code];
  if (messages.size === 0 && fallback && fields[fallback]) add(fallback, error.message);
  for (const [name, text] of messages) fields[name].setError(text);
  return messages.size === 0 ? [error.message] : [];
}

export function clearFieldErrors(fields) {
  for (const entry of Object.values(fields)) entry.setError('');
}

/**
 * Runs `task` on each submit of `form`: clears the last errors, keeps `submit` disabled while it
 * runs, and shows an API error beside its fields (in `status` when no field takes it), focusing
 * the first field in error.
 */
export function onFormSubmit(form, { fields, status, submit }, task) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearFieldErrors(fields);
    replaceChildren(status);
    await busy(submit, async () => {
      try {
        await task();
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const unplaced = showFieldErrors(error, fields);
        if (unplaced.length > 0) replaceChildren(status, notice('error', unplaced.join(' ')));
        form.querySelector('[aria-invalid="true"]')?.focus();
      }
    });
  });
}
