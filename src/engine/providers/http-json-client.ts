import { backoffDelay, sleep } from '../../backoff.js';
import { AppError } from '../../errors.js';

export interface PostJsonOptions {
  /** What the endpoint is, for error messages ("Embeddings endpoint"). */
  service: string;
  apiKey?: string;
  timeoutMs: number;
  /** Extra attempts after a network error, timeout, 429 or 5xx. */
  retries: number;
}

const BACKOFF = { baseMs: 200, maxMs: 5_000 };

/**
 * POSTs JSON and returns the parsed response. Transient failures are retried with exponential
 * backoff; anything that still fails becomes `upstream_unavailable` naming the URL (credentials
 * and query string stripped so secrets never reach clients or logs).
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const target = new URL(url);
  if (target.username || target.password) {
    // fetch refuses URLs with credentials; send them as Basic auth unless an API key is configured.
    const user = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const payload = JSON.stringify(body);
  let lastProblem = '';
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, BACKOFF));
    let response: Response;
    try {
      response = await fetch(target, {
        method: 'POST',
        headers,
        body: payload,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      lastProblem = isTimeout(error) ? `no response within ${options.timeoutMs} ms` : describeNetworkError(error);
      continue;
    }
    if (response.ok) {
      try {
        return await response.json();
      } catch {
        throw upstreamError(url, options.service, 'the response is not valid JSON');
      }
    }
    lastProblem = `HTTP ${response.status}${await errorSnippet(response)}`;
    if (response.status !== 429 && response.status < 500) break; // a client error will not fix itself
  }
  throw upstreamError(url, options.service, lastProblem);
}

/** `upstream_unavailable` for an endpoint that answered with something unusable. */
export function upstreamError(url: string, service: string, problem: string): AppError {
  return new AppError('upstream_unavailable', `${service} ${redactUrl(url)} is unavailable: ${problem}`);
}

/** Appends `suffix` to the URL's path, keeping credentials and query parameters in place. */
export function appendPath(baseUrl: string, suffix: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${suffix}`;
  return url.toString();
}

/** Joins an OpenAI-style base URL (with or without a trailing `/v1`) and a `/v1/...` path. */
export function openAiEndpoint(baseUrl: string, v1Path: string): string {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return appendPath(url.toString(), `/v1/${v1Path}`);
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The system error code (ECONNREFUSED...) when there is one; messages may quote the URL, so never those. */
function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : undefined;
  return cause?.code ?? 'network error';
}

async function errorSnippet(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  return text ? ` (${text.slice(0, 200).replace(/\s+/g, ' ')})` : '';
}
