import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../../errors.js';
import type { AccountService } from '../../services/account.service.js';
import type { Clock } from '../../services/clock.js';
import { isCleanText } from '../input-guard.js';
import { LoginThrottle, loginThrottleLimits } from './login-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Email of the account authenticated by HTTP Basic (management routes only). */
    accountEmail: string;
  }
}

export interface BasicAuthOptions {
  accounts: AccountService;
  clock: Clock;
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
export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const bytes = Buffer.from(match[1], 'base64');
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return undefined;
  const email = decoded.slice(0, colon);
  const apiKey = decoded.slice(colon + 1);
  if (email.length > MAX_EMAIL_LENGTH || apiKey.length > MAX_API_KEY_LENGTH) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(email) || !isCleanText(apiKey)) return undefined;
  return { email, apiKey };
}

/** Requires HTTP Basic credentials on every route of the encapsulating context. */
async function basicAuthPlugin(app: FastifyInstance, options: BasicAuthOptions): Promise<void> {
  const throttle = new LoginThrottle(loginThrottleLimits(options.failureLimit), options.clock);
  app.decorateRequest('accountEmail', '');
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const credentials = parseBasicAuth(request.headers.authorization);
    // Nothing was tried without credentials, so nothing is counted.
    if (!credentials) throw errors.unauthorized('Send HTTP Basic credentials: your account email and API key');
    const retryAfter = throttle.retryAfter(credentials.email, request.ip);
    if (retryAfter > 0) {
      throw errors.tooMany('too_many_auth_failures', 'Too many failed logins; try again later', retryAfter);
    }
    try {
      request.accountEmail = await options.accounts.authenticate(credentials.email, credentials.apiKey);
    } catch (error) {
      throttle.recordFailure(credentials.email, request.ip);
      throw error;
    }
    throttle.recordSuccess(credentials.email, request.ip);
  });
}

export default fp(basicAuthPlugin, { name: 'searchplane-basic-auth' });
