import { ApiError, loadSettings, managementApi } from './api.js';
import { h, notice, replaceChildren } from './dom.js';
import { clearSession, loadSession } from './session.js';
import { renderActivity } from './views/activity.js';
import { renderDocuments } from './views/documents.js';
import { renderIndexList } from './views/index-list.js';
import { renderIndexPage } from './views/index-page.js';
import { renderKeys } from './views/keys.js';
import { renderMessaging } from './views/messaging.js';
import { renderSearch } from './views/search.js';
import { renderSignIn } from './views/sign-in.js';

// Hash routes hold ids only: the key never appears in a URL, and reloading keeps the page.
const ROUTES = [
  [/^#\/indexes\/([^/]+)\/search$/, renderSearch, 'indexes'],
  [/^#\/indexes\/([^/]+)\/documents$/, renderDocuments, 'indexes'],
  [/^#\/indexes\/([^/]+)$/, renderIndexPage, 'indexes'],
  [/^#\/indexes$/, renderIndexList, 'indexes'],
  [/^#\/messaging$/, renderMessaging, 'messaging'],
  [/^#\/keys$/, renderKeys, 'keys'],
  [/^#\/activity$/, renderActivity, 'activity'],
];

const main = document.getElementById('main');
let settings = null;
let controller = null;
let signOutReason = null;

async function route({ moveFocus }) {
  controller?.abort();
  controller = new AbortController();
  const { signal } = controller;
  const session = loadSession();
  updateShell(session);
  if (!session) {
    renderSignIn({ main, reason: signOutReason, onSignedIn: () => route({ moveFocus: true }) });
    signOutReason = null;
    return;
  }
  const hash = location.hash.startsWith('#/') ? location.hash : '#/indexes';
  const match = ROUTES.map(([pattern, view, section]) => ({ found: pattern.exec(hash), view, section })).find(
    (candidate) => candidate.found,
  );
  if (!match) {
    location.replace('#/indexes');
    return;
  }
  const params = decodeParams(match.found.slice(1));
  if (!params) {
    // A hand-edited or truncated link (bad percent-encoding) names nothing that could exist.
    location.replace('#/indexes');
    return;
  }
  markSection(match.section);
  replaceChildren(main, h('p', { class: 'loading' }, 'Loading…'));
  // The key was rotated or the account removed since signing in: whichever call of the page finds
  // out first (a page load, a rename, a period change…) signs out, unless that already happened.
  const onUnauthorized = (error) => {
    if (signal.aborted || loadSession()?.apiKey !== session.apiKey) return;
    signOut(
      `Signed out: the API key was refused (${error.message}). It may have been rotated; sign in with the current key.`,
    );
  };
  try {
    settings ??= await loadSettings();
    await match.view({ main, api: managementApi(session, { onUnauthorized }), session, settings, signal, params });
    if (moveFocus && !signal.aborted) main.querySelector('h1')?.focus();
  } catch (error) {
    if (signal.aborted || error?.name === 'AbortError') return;
    replaceChildren(main, h('h1', { tabindex: '-1' }, 'Something went wrong'), notice('error', readable(error)));
  }
}

function decodeParams(raw) {
  try {
    return raw.map(decodeURIComponent);
  } catch {
    return null;
  }
}

function readable(error) {
  return error instanceof ApiError ? error.message : 'The console hit an unexpected problem; reload the page.';
}

function updateShell(session) {
  document.getElementById('nav').hidden = !session;
  document.getElementById('account').hidden = !session;
  document.getElementById('account-email').textContent = session?.email ?? '';
}

function markSection(section) {
  for (const link of document.querySelectorAll('#nav a')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function signOut(reason = null) {
  clearSession();
  signOutReason = reason;
  if (location.hash !== '#/indexes') history.replaceState(null, '', '#/indexes');
  route({ moveFocus: true });
}

document.getElementById('sign-out').addEventListener('click', () => signOut());
// The skip link targets an element, not a route: focus it without touching the hash.
document.getElementById('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', () => route({ moveFocus: true }));
route({ moveFocus: false });
