// The two APIs of this server, same origin: the management API with HTTP Basic (account e-mail +
// API key) and an index's data plane with its token as a Bearer token. Failures become ApiError
// with the server's own message, never a raw body.

/** A failed call: `message` is for people; `status`, `code` and `details` are what the API said. */
export class ApiError extends Error {
  constructor(message, { status = 0, code = null, details = [], retryAfter = null, plane = null } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = Array.isArray(details) ? details : [];
    this.retryAfter = retryAfter;
    /** 'management' or 'data': a 401 from the first means the account's key no longer works. */
    this.plane = plane;
  }
}

/**
 * One JSON request. `credentials: 'omit'` keeps cookies out and stops the browser from answering
 * a 401 Basic challenge with its own login prompt: the page shows the API's message instead.
 */
async function request(url, { method = 'GET', headers = {}, body, signal, plane = null } = {}) {
  let response;
  try {
    response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError('Cannot reach the server; check your connection and try again.', { plane });
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) {
    const retryAfter = Number(response.headers.get('retry-after')) || null;
    throw new ApiError(errorText(data, response, retryAfter), {
      status: response.status,
      code: typeof data?.code === 'string' ? data.code : null,
      details: data?.details,
      retryAfter,
      plane,
    });
  }
  return data;
}

function errorText(data, response, retryAfter) {
  let text = typeof data?.error === 'string' && data.error ? data.error : `The server answered ${response.status}`;
  if (retryAfter) text += ` (try again in ${retryAfter} s)`;
  return text;
}

/** Base64 of UTF-8, as HTTP Basic expects (btoa alone fails on non-Latin-1 characters). */
function base64(text) {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The management API (`/v2/...`) as the signed-in account. `onUnauthorized(error)` runs on every
 * 401 before it is thrown: from any call of the page, not only its first load, that means the key
 * no longer works.
 */
export function managementApi(session, { onUnauthorized } = {}) {
  const authorization = `Basic ${base64(`${session.email}:${session.apiKey}`)}`;
  const call = async (method, path, body, signal) => {
    try {
      return await request(`/v2${path}`, { method, headers: { authorization }, body, signal, plane: 'management' });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) onUnauthorized?.(error);
      throw error;
    }
  };
  return {
    get: (path, signal) => call('GET', path, undefined, signal),
    post: (path, body, signal) => call('POST', path, body, signal),
    delete: (path, signal) => call('DELETE', path, undefined, signal),
  };
}

/**
 * An index's data plane, path form (`/indexes/<endpoint>/<route>[/<namespace>]`) on this origin,
 * with the record's read-write token. Resolves to the `result` of the SDK envelope.
 */
export function dataPlaneApi(record) {
  const authorization = `Bearer ${record.token}`;
  return async (route, namespace, body, signal) => {
    if (!addressableNamespace(namespace)) throw new ApiError(UNADDRESSABLE_NAMESPACE, { plane: 'data' });
    const suffix = namespace ? `/${encodeURIComponent(namespace)}` : '';
    const url = `/indexes/${encodeURIComponent(record.endpoint)}/${route}${suffix}`;
    const data = await request(url, {
      method: 'POST',
      headers: { authorization },
      body: body ?? [],
      signal,
      plane: 'data',
    });
    return data?.result;
  };
}

export const UNADDRESSABLE_NAMESPACE =
  'A namespace named "." or ".." cannot be used from a browser: browsers resolve it in the URL (even ' +
  'written as %2E), so the request would reach another namespace or none. Reach it with a client that ' +
  'sends the path unchanged, such as curl.';

/**
 * False for "." and "..": a browser's URL parsing turns `/route/.` into `/route/` (the default
 * namespace) and `/route/..` into the parent path, so the console must not send them at all.
 */
export function addressableNamespace(namespace) {
  return namespace !== '.' && namespace !== '..';
}

/** What this server told the console about itself (data domain, regions, plans, periods). */
export function loadSettings() {
  return request('/console/settings.json');
}
