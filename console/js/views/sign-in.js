import { ApiError, managementApi } from '../api.js';
import { busy, field, h, notice, replaceChildren } from '../dom.js';
import { saveSession } from '../session.js';

/** The sign-in form: checks the e-mail and key against the API before keeping them. */
export function renderSignIn({ main, reason, onSignedIn }) {
  const email = field(
    'E-mail',
    h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true, spellcheck: 'false' }),
  );
  const apiKey = field(
    'API key',
    h('input', { type: 'password', name: 'api-key', autocomplete: 'current-password', required: true }),
    'Kept in this browser tab only (session storage) and sent to this server, never in a URL or cookie.',
  );
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const status = h('div', { class: 'form-status' });
  // POST and a submit handler: the key must never end up in a query string, even if the script fails.
  const form = h(
    'form',
    { class: 'card sign-in', method: 'post', novalidate: true, 'aria-labelledby': 'sign-in-heading' },
    h('h1', { id: 'sign-in-heading', tabindex: '-1' }, 'Sign in to searchplane'),
    h('p', { class: 'lead' }, 'Use your account e-mail and API key.'),
    reason ? notice('info', reason) : null,
    email.wrapper,
    apiKey.wrapper,
    status,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    email.setError('');
    apiKey.setError('');
    replaceChildren(status);
    const session = { email: email.control.value.trim(), apiKey: apiKey.control.value };
    for (const [entry, value, text] of [
      [email, session.email, 'Enter your account e-mail.'],
      [apiKey, session.apiKey, 'Enter your API key.'],
    ]) {
      if (value) continue;
      entry.setError(text);
      entry.control.focus();
      return;
    }
    await busy(submit, async () => {
      try {
        try {
          await managementApi(session).get('/search');
        } catch (error) {
          // 403: an API key without indexes.read, but a valid one; its pages say what it lacks.
          if (!(error instanceof ApiError && error.status === 403)) throw error;
        }
        saveSession(session);
        onSignedIn();
      } catch (error) {
        const text = error instanceof ApiError ? error.message : 'Sign-in failed; try again.';
        replaceChildren(status, notice('error', text));
        apiKey.control.select();
      }
    });
  });
  replaceChildren(main, h('div', { class: 'narrow' }, form));
  email.control.focus();
}
