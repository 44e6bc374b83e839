import { ApiError } from '../api.js';
import { copyText } from '../clipboard.js';
import { confirmDialog } from '../dialog.js';
import { busy, field, h, notice, replaceChildren, uid } from '../dom.js';
import { formatDate } from '../format.js';
import { toast } from '../toast.js';
import { onFormSubmit } from './field-errors.js';

/** `#/keys`: the account's API keys, the create form, and delete. Secrets show once, at creation. */
export async function renderKeys({ main, api, settings, signal }) {
  const status = h('div', { class: 'form-status' });
  const listArea = h('div', { class: 'list-area' }, h('p', { class: 'loading' }, 'Loading keys…'));
  const indexes = await api.get('/search', signal);
  const names = new Map(indexes.map((index) => [index.id, index.name]));
  const reload = async () => replaceChildren(listArea, keyTable(await api.get('/keys', signal)));

  const keyTable = (keys) => {
    if (keys.length === 0) return h('p', { class: 'empty' }, 'No API keys yet. The account key can do everything.');
    const headers = ['Name', 'Actions', 'Indexes', 'Expires', 'Created', 'Action'];
    return h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'data-table key-table' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            headers.map((text) => h('th', { scope: 'col' }, text)),
          ),
        ),
        h('tbody', {}, keys.map(keyRow)),
      ),
    );
  };

  const keyRow = (key) => {
    const remove = h(
      'button',
      { type: 'button', class: 'danger small', 'aria-label': `Delete key ${key.name}` },
      'Delete',
    );
    remove.addEventListener('click', () =>
      busy(remove, async () => {
        const confirmed = await confirmDialog({
          title: `Delete the key ${key.name}?`,
          message: 'Anything using it is refused from its next request on. This cannot be undone.',
          confirmLabel: 'Delete key',
          danger: true,
        });
        if (!confirmed) return;
        replaceChildren(status);
        try {
          await api.delete(`/keys/${key.id}`);
          toast(`Key ${key.name} deleted`);
          await reload();
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          replaceChildren(status, notice('error', error.message));
        }
      }),
    );
    const scope = key.indexes === null ? 'All' : key.indexes.map((id) => names.get(id) ?? id).join(', ');
    return h(
      'tr',
      { 'data-key-id': key.id },
      h('td', { 'data-label': 'Name', class: 'strong' }, key.name),
      h('td', { 'data-label': 'Actions' }, key.actions.join(', ')),
      h('td', { 'data-label': 'Indexes' }, scope),
      h('td', { 'data-label': 'Expires' }, key.expires_at === null ? 'Never' : formatDate(key.expires_at)),
      h('td', { 'data-label': 'Created' }, formatDate(key.created_at)),
      h('td', { 'data-label': 'Action' }, remove),
    );
  };

  replaceChildren(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'API keys'),
      h(
        'p',
        { class: 'lead' },
        'Keys with some actions, indexes or an expiry, for scripts and teammates. Use one as the API key with the account e-mail.',
      ),
    ),
    h('section', { 'aria-label': 'Your API keys' }, listArea),
    status,
    createForm({ api, settings, indexes, onCreated: reload }),
  );
  await reload();
}

function checkboxes(legend, options) {
  const boxes = options.map(({ value, label }) => {
    const id = uid('check');
    const input = h('input', { type: 'checkbox', id, value });
    return { input, element: h('label', { for: id, class: 'check' }, input, ' ', label) };
  });
  const error = h('p', { class: 'field-error', hidden: true });
  const element = h(
    'fieldset',
    { class: 'field checks' },
    h('legend', {}, legend),
    boxes.map((box) => box.element),
    error,
  );
  const setError = (text) => {
    error.hidden = !text;
    error.textContent = text || '';
  };
  return { element, setError, checked: () => boxes.filter((box) => box.input.checked).map((box) => box.input.value) };
}

function createForm({ api, settings, indexes, onCreated }) {
  const name = field(
    'Name',
    h('input', { type: 'text', name: 'name', autocomplete: 'off', spellcheck: 'false' }),
    'Up to 64 letters, digits, "-", "_" or ".".',
  );
  const actions = checkboxes('Actions', [
    { value: '*', label: 'All actions' },
    ...settings.actions.map((action) => ({ value: action, label: action })),
  ]);
  const scope = checkboxes(
    'Limit to indexes (none checked: every index)',
    indexes.map((index) => ({ value: index.id, label: index.name })),
  );
  const expires = field('Expires on (UTC)', h('input', { type: 'date', name: 'expires' }), 'Empty: never.');
  const fields = {
    name: { label: 'Name', ...name },
    actions: { label: 'Actions', setError: actions.setError },
    expires_at: { label: 'Expiry', setError: expires.setError },
  };
  const status = h('div', { class: 'form-status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create key');
  const form = h(
    'form',
    { class: 'card create-key', novalidate: true, 'aria-labelledby': 'create-key-heading' },
    h('h2', { id: 'create-key-heading' }, 'Create an API key'),
    h('div', { class: 'field-row' }, name.wrapper, expires.wrapper),
    actions.element,
    indexes.length > 0 ? scope.element : null,
    status,
    h('div', { class: 'actions' }, submit),
  );
  onFormSubmit(form, { fields, status, submit }, async () => {
    const limited = scope.checked();
    const day = expires.control.value;
    const created = await api.post('/keys', {
      name: name.control.value.trim(),
      actions: actions.checked(),
      ...(limited.length > 0 ? { indexes: limited } : {}),
      ...(day ? { expires_at: Date.parse(`${day}T00:00:00Z`) / 1000 } : {}),
    });
    form.reset();
    replaceChildren(status, secretNotice(created));
    toast(`Key ${created.name} created`);
    await onCreated();
    status.querySelector('button')?.focus();
  });
  return form;
}

/** The new key's secret, with a copy button: the only time the console (or anyone) sees it. */
function secretNotice(created) {
  const copy = h('button', { type: 'button', class: 'secondary small' }, 'Copy key');
  copy.addEventListener('click', () => copyText(created.key, 'Key'));
  return notice(
    'success',
    h('p', {}, `Created ${created.name}. Copy its key now: it is not shown again.`),
    h('p', { class: 'secret-once' }, h('code', { class: 'new-key' }, created.key), ' ', copy),
  );
}
