import { STATUS_CODES } from 'node:http';

/** Why a remote call failed: the server answered with an error, or it could not be reached. */
export type RemoteErrorKind = 'http' | 'network';

/**
 * A failed call to a searchplane server. The message is the one line the CLI prints after
 * `searchplane: `, e.g. `401 unauthorized: Missing or invalid credentials` or
 * `cannot reach http://127.0.0.1:9/: connection refused`.
 */
export class RemoteError extends Error {
  override readonly name = 'RemoteError';

  constructor(
    message: string,
    readonly kind: RemoteErrorKind,
    /** The HTTP status, for `http` errors. */
    readonly status?: number,
    /** The server's `Retry-After`, in milliseconds, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** A successful (2xx) answer with its parsed JSON body. */
export interface HttpResponse {
  status: number;
  body: unknown;
}

/** What came back on the wire, whatever the status. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends a request; rejects only when no answer came (connection refused, timeout…). */
export type Transport = (request: HttpRequest) => Promise<RawResponse>;

/** The `code` of the error a transport rejects with when the server does not answer in time. */
export const TIMEOUT_CODE = 'SEARCHPLANE_TIMEOUT';

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the server',
};

/**
 * Sends one request and returns its JSON body on 2xx. Throws a {@link RemoteError}: `network`
 * when the server cannot be reached or does not answer in time, `http` for any other status
 * (its message built from the `{"error","code"}` or `{"error","status"}` body).
 */
export async function sendRequest(transport: Transport, request: HttpRequest): Promise<HttpResponse> {
  let response: RawResponse;
  try {
    response = await transport(request);
  } catch (error) {
    throw new RemoteError(
      `cannot reach ${originOf(request.url)}: ${networkReason(error, request.timeoutMs)}`,
      'network',
    );
  }
  const body = parseJson(response.text);
  if (response.status >= 200 && response.status < 300) {
    if (body === undefined) {
      const type = header(response, 'content-type') ?? 'no content type';
      throw new RemoteError(
        `unexpected answer from ${originOf(request.url)} (not JSON: ${response.status}, ${type}); is --url a searchplane server?`,
        'http',
        response.status,
      );
    }
    return { status: response.status, body };
  }
  throw new RemoteError(
    describeHttpError(response.status, body, response.text),
    'http',
    response.status,
    parseRetryAfter(header(response, 'retry-after') ?? null),
  );
}

function header(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `<status> <code or reason>: <message> (<field>: <problem>; …)`. */
export function describeHttpError(status: number, body: unknown, text: string): string {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: unknown;
    code?: unknown;
    details?: { field?: string; message?: string; allowed?: unknown[] }[];
  };
  const label = typeof fields.code === 'string' ? fields.code : (STATUS_CODES[status]?.toLowerCase() ?? 'error');
  const message = typeof fields.error === 'string' ? fields.error : oneLine(text) || 'no details';
  const details = Array.isArray(fields.details)
    ? fields.details.map((detail) => {
        const allowed = Array.isArray(detail.allowed) ? ` (${detail.allowed.join(', ')})` : '';
        return `${detail.field ? `${detail.field}: ` : ''}${detail.message ?? 'invalid'}${allowed}`;
      })
    : [];
  return `${status} ${label}: ${message}${details.length > 0 ? ` [${details.join('; ')}]` : ''}`;
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date; undefined when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function originOf(url: string): string {
  return `${new URL(url).origin}/`;
}

function networkReason(error: unknown, timeoutMs: number): string {
  const failure = error as { code?: string; message?: string };
  if (failure.code === TIMEOUT_CODE) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  if (failure.code && NETWORK_REASONS[failure.code]) return NETWORK_REASONS[failure.code];
  return oneLine(failure.message ?? String(error));
}
