import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../../errors.js';
import type { AccountService } from '../../services/account.service.js';
import type { Clock } from '../../services/clock.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Email of the account authenticated by HTTP Basic (management routes only). */
    accountEmail: string;
  }
}

export interface BasicAuthOptions {
  accounts: AccountService;
  clock: Clock;
  /** Failures per address per minute before the address is refused with 429. */
  failureLimit: number;
}

const WINDOW_MS = 60_000;
const MAX_TRACKED_ADDRESSES = 100_000;

/**
 * Counts failed logins per address in fixed one-minute windows. Past the limit the address
 * is refused (even with right credentials) until its window ends, which makes guessing keys
 * pointless; addresses that never fail are never slowed.
 */
export class AuthFailureThrottle {
  private readonly failures = new Map<string, { windowStart: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
  ) {}

  /** Seconds until the address may try again, or 0 when it is not blocked. */
  retryAfter(address: string): number {
    const entry = this.failures.get(address);
    if (!entry) return 0;
    const now = this.clock();
    if (now - entry.windowStart >= WINDOW_MS) {
      this.failures.delete(address);
      return 0;
    }
    return entry.count > this.limit ? Math.ceil((entry.windowStart + WINDOW_MS - now) / 1000) : 0;
  }

  recordFailure(address: string): void {
    const now = this.clock();
    const entry = this.failures.get(address);
    if (entry && now - entry.windowStart < WINDOW_MS) {
      entry.count++;
      return;
    }
    if (this.failures.size >= MAX_TRACKED_ADDRESSES) this.evictExpired(now);
    this.failures.set(address, { windowStart: now, count: 1 });
  }

  private evictExpired(now: number): void {
    for (const [address, entry] of this.failures) {
      if (now - entry.windowStart >= WINDOW_MS) this.failures.delete(address);
    }
    if (this.failures.size >= MAX_TRACKED_ADDRESSES) this.failures.clear();
  }
}

interface BasicCredentials {
  email: string;
  apiKey: string;
}

/** Parses `Authorization: Basic base64(email:key)`; undefined when absent or malformed. */
export function parseBasicAuth(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = decodeBase64Text(match[1]);
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/**
 * base64 to UTF-8 text, as `Buffer.from(encoded, 'base64').toString('utf8')` decodes it. Every
 * management request decodes its credentials, and `atob` is several times cheaper for the usual
 * ASCII ones (where its Latin-1 text is the UTF-8 text); anything else takes the Buffer path.
 */
function decodeBase64Text(encoded: string): string {
  try {
    const text = atob(encoded);
    if (isAscii(text)) return text;
  } catch {
    // base64url characters or padding that atob refuses: Buffer decodes those leniently.
  }
  return Buffer.from(encoded, 'base64').toString('utf8');
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Requires HTTP Basic credentials on every route of the encapsulating context. */
async function basicAuthPlugin(app: FastifyInstance, options: BasicAuthOptions): Promise<void> {
  const throttle = new AuthFailureThrottle(options.failureLimit, options.clock);
  const authenticate = async (request: FastifyRequest, credentials: BasicCredentials | undefined) => {
    try {
      if (!credentials) throw errors.unauthorized('Send HTTP Basic credentials: your account email and API key');
      request.accountEmail = await options.accounts.authenticate(credentials.email, credentials.apiKey);
    } catch (error) {
      throttle.recordFailure(request.ip);
      throw error;
    }
  };
  app.decorateRequest('accountEmail', '');
  // A callback hook, so that a key verified moments ago (every request of a busy client) costs
  // no promise: this runs before every management request.
  app.addHook('onRequest', (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const retryAfter = throttle.retryAfter(request.ip);
    if (retryAfter > 0) {
      return done(
        errors.tooMany(
          'too_many_auth_failures',
          'Too many failed logins from this address; try again later',
          retryAfter,
        ),
      );
    }
    const credentials = parseBasicAuth(request.headers.authorization);
    const email = credentials && options.accounts.verifiedNow(credentials.email, credentials.apiKey);
    if (email !== undefined) {
      request.accountEmail = email;
      return done();
    }
    authenticate(request, credentials).then(() => done(), done);
  });
}

export default fp(basicAuthPlugin, { name: 'searchplane-basic-auth' });
