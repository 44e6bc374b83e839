import { isUtf8 } from 'node:buffer';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors, isAppError } from '../../errors.js';
import type { AccountService } from '../../services/account.service.js';
import type { Clock } from '../../services/clock.js';
import { authorize, type Principal, type RouteAccess } from '../../services/principal.js';
import { isCleanText } from '../input-guard.js';
import { LoginThrottle, loginThrottleLimits } from './login-throttle.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Email of the account authenticated by HTTP Basic (management routes only). */
    accountEmail: string;
    /** Who the request acts as: the account's own key or one of its API keys (management routes only). */
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** What a management route needs of the caller's key; a route without it is for the account key only. */
    access?: RouteAccess;
  }
}

export interface BasicAuthOptions {
  accounts: AccountService;
  /** Failed logins per (account, address) per minute before 429; see {@link LoginThrottle}. */
  failureLimit: number;
  clock: Clock;
}

/** The longest email an account can have (64 + "@" + 255, as the account service accepts). */
const MAX_EMAIL_LENGTH = 320;
/** API keys are 43 characters; anything much longer is not worth hashing. */
const MAX_API_KEY_LENGTH = 1024;

interface BasicCredentials {
  email: string;
  apiKey: string;
}

/**
 * Parses `Authorization: Basic base64(email:key)`; undefined when absent or malformed, including
 * text no account can have (control characters, NUL, invalid UTF-8, overlong), so it never
 * reaches the store or the throttle's keys. The email and the key are decoded from the bytes
 * separately: a string sliced from the whole `email:key` text would keep the key alive for as long
 * as the email is kept (the throttle keeps emails for a minute or more).
 */
export function parseBasicAuth(header: string | undefined): BasicCredentials | undefined {
  const match = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const bytes = Buffer.from(match[1], 'base64');
  const colon = bytes.indexOf(0x3a);
  if (colon <= 0 || colon === bytes.length - 1 || !isUtf8(bytes)) return undefined;
  const email = bytes.toString('utf8', 0, colon);
  const apiKey = bytes.toString('utf8', colon + 1);
  if (email.length > MAX_EMAIL_LENGTH || apiKey.length > MAX_API_KEY_LENGTH) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(email) || !isCleanText(apiKey)) return undefined;
  return { email, apiKey };
}

/**
 * The management plugin's `onRequest` hook: HTTP Basic credentials on every route of its context
 * (nested plugins included), checked against the login throttle before any key is verified, then
 * the key's actions and indexes against the `access` the route declares in its config.
 */
export function basicAuthHook(options: BasicAuthOptions) {
  const throttle = new LoginThrottle(loginThrottleLimits(options.failureLimit), options.clock);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // Answers carry index tokens and account data: no cache (a browser's included) may keep them.
    reply.header('cache-control', 'no-store');
    const credentials = parseBasicAuth(request.headers.authorization);
    // Nothing was tried without credentials, so nothing is counted.
    if (credentials === undefined) {
      throw errors.unauthorized('Send HTTP Basic credentials: your account email and API key');
    }
    const { email, apiKey } = credentials;
    // Read once: behind trusted proxies, each read of request.ip walks X-Forwarded-For again.
    const address = request.ip;
    const retryAfter = throttle.retryAfter(email, address);
    if (retryAfter > 0) {
      throw errors.tooMany('too_many_auth_failures', 'Too many failed logins; try again later', retryAfter);
    }
    let principal: Principal;
    try {
      principal = await options.accounts.authenticate(email, apiKey);
    } catch (error) {
      // Only a refused key is a failed login: a store that cannot be reached (answered 503 with
      // Retry-After: 1) would otherwise lock out every client that retries as told, for a minute
      // past the outage.
      if (isAppError(error) && error.code === 'unauthorized') throttle.recordFailure(email, address);
      throw error;
    }
    throttle.recordSuccess(email, address);
    request.principal = principal;
    request.accountEmail = principal.email;
    const { id } = (request.params ?? {}) as { id?: unknown };
    authorize(principal, request.routeOptions.config.access, typeof id === 'string' ? id : undefined);
  };
}
