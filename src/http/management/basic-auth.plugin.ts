import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { errors, isAppError } from '../../errors.js';
import type { AccountService } from '../../services/account.service.js';
import { isCleanText } from '../input-guard.js';
import { REQUEST_START_PLUGIN, setPlaneOnRequest } from '../request-start.plugin.js';
import { LoginThrottle, loginThrottleLimits } from './login-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Email of the account authenticated by HTTP Basic (management routes only). */
    accountEmail: string;
  }
}

export interface BasicAuthOptions {
  accounts: AccountService;
  /** Failed logins per (account, address) per minute before 429; see {@link LoginThrottle}. */
  failureLimit: number;
}

/** The longest email an account can have (64 + "@" + 255, as the account service accepts). */
const MAX_EMAIL_LENGTH = 320;
/** API keys are 43 characters; anything much longer is not worth hashing. */
const MAX_API_KEY_LENGTH = 1024;

/**
 * Parses `Authorization: Basic base64(email:key)`; undefined when absent or malformed, including
 * text no account can have (control characters, NUL, invalid UTF-8, overlong), so it never
 * reaches the store or the throttle's keys.
 */
export function parseBasicAuth(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  // Every management request parses its credentials; what clients send (`Basic ` and padded
  // base64 of ASCII text) takes one regex test and one pass over the text, everything else the
  // general path below, which gives the same result for these headers.
  if (CANONICAL_BASIC.test(header)) {
    const credentials = splitAsciiCredentials(atob(header.slice(6)));
    if (credentials !== NOT_ASCII) return credentials;
  }
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = decodeBase64Text(match[1]);
  if (decoded === undefined) return undefined;
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  const email = detached(decoded.slice(0, colon));
  const apiKey = decoded.slice(colon + 1);
  if (email.length > MAX_EMAIL_LENGTH || apiKey.length > MAX_API_KEY_LENGTH) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(email) || !isCleanText(apiKey)) return undefined;
  return { email, apiKey };
}

/** `Basic ` and standard base64 with correct padding: what `atob` decodes without complaint. */
const CANONICAL_BASIC = /^Basic (?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const NOT_ASCII = Symbol('not ASCII');

/**
 * {@link parseBasicAuth}'s checks in one pass over decoded text, for ASCII text only (where the
 * Latin-1 text `atob` gives is the UTF-8 text, and no lone surrogate can occur); NOT_ASCII for
 * the general path otherwise.
 */
function splitAsciiCredentials(text: string): BasicCredentials | undefined | typeof NOT_ASCII {
  let colon = -1;
  let refused = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return NOT_ASCII;
    if (colon < 0) {
      if (code === 0x3a) colon = i;
      // Control characters in the email, as the general path's check.
      else if (code < 0x20 || code === 0x7f) refused = true;
    } else if (code === 0) refused = true; // NUL in the key (isCleanText)
  }
  if (refused || colon <= 0 || colon === text.length - 1) return undefined;
  if (colon > MAX_EMAIL_LENGTH || text.length - colon - 1 > MAX_API_KEY_LENGTH) return undefined;
  return { email: detached(text.slice(0, colon)), apiKey: text.slice(colon + 1) };
}

/**
 * A copy of `part` that holds nothing else. V8 makes a slice of 13 characters or more a view of
 * the whole text, so an email sliced from the decoded `email:key` kept that text, key included,
 * alive wherever the email was kept: in the remembered header, the login throttle's keys, for a
 * minute or more after the request. The copy costs one round trip through bytes, paid only when a
 * header is parsed (once a minute for a client repeating a good one).
 */
function detached(part: string): string {
  return Buffer.from(part, 'utf8').toString('utf8');
}

interface BasicCredentials {
  email: string;
  apiKey: string;
}

/**
 * base64 to UTF-8 text; undefined when the bytes are not valid UTF-8. Every management request
 * decodes its credentials, and `atob` is several times cheaper for the usual ASCII ones (where its
 * Latin-1 text is the UTF-8 text); anything else takes the strict Buffer + TextDecoder path.
 */
function decodeBase64Text(encoded: string): string | undefined {
  try {
    const text = atob(encoded);
    if (isAscii(text)) return text;
  } catch {
    // base64url characters or padding that atob refuses: Buffer decodes those leniently.
  }
  // A small Buffer is a slice of Node's shared pool: the key's bytes are wiped once decoded, so they
  // do not wait there (invisible to a heap snapshot) until the pool is reused.
  const bytes = Buffer.from(encoded, 'base64');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  } finally {
    bytes.fill(0);
  }
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * Requires HTTP Basic credentials on every route of the encapsulating context and of the contexts
 * nested in it, as the plane's first check (so the app must have registered the request-start
 * plugin; Fastify refuses to start otherwise). No nested plugin can replace the check.
 */
async function basicAuthPlugin(app: FastifyInstance, options: BasicAuthOptions): Promise<void> {
  // The accounts service's clock, so that one read per request serves both.
  const clock = options.accounts.clock;
  const throttle = new LoginThrottle(loginThrottleLimits(options.failureLimit), clock);
  const authenticate = async (request: FastifyRequest, header: string, credentials: BasicCredentials) => {
    try {
      request.accountEmail = await options.accounts.authenticate(credentials.email, credentials.apiKey);
    } catch (error) {
      // Only a refused key is a failed login: a store that cannot be reached (answered 503 with
      // Retry-After: 1) would otherwise lock out every client that retries as told, for a minute
      // past the outage.
      if (isAppError(error) && error.code === 'unauthorized') throttle.recordFailure(credentials.email, request.ip);
      throw error;
    }
    throttle.recordSuccess(credentials.email, request.ip);
    options.accounts.rememberHeader(header, credentials.email, request.accountEmail);
  };
  app.decorateRequest('accountEmail', '');
  // Run from the app's first hook rather than a hook of its own (see setPlaneOnRequest), and with a
  // callback, so that a key verified moments ago (every request of a busy client) costs no promise:
  // this runs before every management request.
  setPlaneOnRequest(app, (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // Answers carry index tokens and account data: no cache (a browser's included) may keep them.
    // Set here rather than in a hook of its own, which would cost every request a hook call.
    reply.header('cache-control', 'no-store');
    const header = request.headers.authorization;
    // The header a client sent a minute ago with a good key: one digest instead of parsing it
    // and digesting its key, with the same throttle check and outcome as the full path below.
    // One clock read for the request (each costs about 50 ns on a VM), shared by the checks below.
    const now = clock();
    const known = header === undefined ? undefined : options.accounts.verifiedHeaderNow(header, now);
    const credentials = known === undefined ? parseBasicAuth(header) : undefined;
    const login = known?.login ?? credentials?.email;
    // Nothing was tried without credentials, so nothing is counted.
    if (header === undefined || login === undefined) {
      return done(errors.unauthorized('Send HTTP Basic credentials: your account email and API key'));
    }
    const address = request.ip;
    const retryAfter = throttle.retryAfter(login, address, now);
    if (retryAfter > 0) {
      return done(errors.tooMany('too_many_auth_failures', 'Too many failed logins; try again later', retryAfter));
    }
    const email = known?.email ?? options.accounts.verifiedNow(login, credentials!.apiKey);
    if (email !== undefined) {
      request.accountEmail = email;
      throttle.recordSuccess(login, address, now);
      if (known === undefined) options.accounts.rememberHeader(header, login, email);
      return done();
    }
    authenticate(request, header, credentials!).then(() => done(), done);
  });
}

export default fp(basicAuthPlugin, { name: 'searchplane-basic-auth', dependencies: [REQUEST_START_PLUGIN] });
