// The signed-in account lives in this tab's sessionStorage only: never in a URL (the page's routes
// are ids), never in a cookie, gone when the tab closes or on sign out.
const KEY = 'searchplane.console.session';

/** { email, apiKey } or null. */
export function loadSession() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    return value && typeof value.email === 'string' && typeof value.apiKey === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  sessionStorage.setItem(KEY, JSON.stringify({ email: session.email, apiKey: session.apiKey }));
}

export function clearSession() {
  sessionStorage.clear();
}
