import { indexUrls } from '../../services/index-urls.js';
import type { SearchIndexRecord } from '../../services/search-index.service.js';
import type { ServerTarget } from './credentials.js';
import { RemoteError, sendRequest, type Transport } from './http-request.js';
import { nodeTransport } from './node-transport.js';
import { DEFAULT_RETRY_POLICY, type RetryHooks, type RetryListener, type RetryPolicy, withRetries } from './retry.js';

/** An index record as the management API sends it. */
export type IndexRecord = SearchIndexRecord;

/** Where an index's data plane answers and the read-write token it takes. */
export interface DataPlaneTarget {
  url: string;
  token: string;
}

export interface ApiClientOptions {
  transport?: Transport;
  policy?: RetryPolicy;
  hooks?: RetryHooks;
  /** Per request; large upserts wait for embeddings, so this is generous. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * Calls a searchplane server: the management API (`/v2/...`, HTTP Basic with the account's
 * email and API key) and an index's data plane (Bearer index token, `{"result"}` envelope).
 * Management reads are retried on 5xx, data-plane calls (reads and idempotent writes) on 429,
 * 5xx and no answer; management writes are not, since a create that failed may still have
 * happened.
 */
export class ApiClient {
  private readonly transport: Transport;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;

  constructor(
    readonly target: ServerTarget,
    private readonly options: ApiClientOptions = {},
  ) {
    this.transport = options.transport ?? nodeTransport;
    this.policy = options.policy ?? DEFAULT_RETRY_POLICY;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** `GET /v2<path>`, retried on 5xx (a 429 here is the failed-login throttle: not retried). */
  get<T>(path: string): Promise<T> {
    const policy = { ...this.policy, retryTooManyRequests: false };
    return withRetries(() => this.management<T>('GET', path), policy, this.options.hooks);
  }

  /** `POST /v2<path>` with an optional JSON body; not retried. */
  post<T>(path: string, body?: unknown): Promise<T> {
    return this.management<T>('POST', path, body);
  }

  /** `DELETE /v2<path>`; not retried. */
  delete<T>(path: string): Promise<T> {
    return this.management<T>('DELETE', path);
  }

  /** The data-plane URL and read-write token of an index record. */
  dataPlaneOf(record: Pick<IndexRecord, 'endpoint' | 'token'>): DataPlaneTarget {
    return { url: indexUrls(record.endpoint, this.target.url).url, token: record.token };
  }

  /**
   * `POST <data plane>/<route>[/<namespace>]` and its `result`. Every data-plane route the CLI
   * calls is a read or an idempotent write (upsert and delete by id), so all are retried,
   * including when the server cannot be reached for a moment.
   */
  dataPlane<T>(
    index: DataPlaneTarget,
    route: string,
    namespace: string,
    body: unknown,
    onRetry?: RetryListener,
  ): Promise<T> {
    const url = `${index.url}/${route}${namespace === '' ? '' : `/${namespaceSegment(namespace)}`}`;
    const call = async () => {
      const { body: answer } = await sendRequest(this.transport, {
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${index.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        timeoutMs: this.timeoutMs,
      });
      if (typeof answer !== 'object' || answer === null || !('result' in answer)) {
        throw new RemoteError(`unexpected answer from ${url}: no "result"`, 'http', 200);
      }
      return (answer as { result: T }).result;
    };
    const policy = { ...this.policy, retryNetwork: true };
    const hooks = { ...this.options.hooks, onRetry: onRetry ?? this.options.hooks?.onRetry };
    return withRetries(call, policy, hooks);
  }

  private async management<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { email, apiKey, url } = this.target;
    const headers: Record<string, string> = {
      authorization: `Basic ${Buffer.from(`${email}:${apiKey}`).toString('base64')}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await sendRequest(this.transport, {
      method,
      url: `${url}/v2${path}`,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      timeoutMs: this.timeoutMs,
    });
    return response.body as T;
  }
}

/**
 * A namespace as one path segment. encodeURIComponent leaves dots alone, and a segment "." or
 * ".." would be collapsed as a dot segment (addressing the default namespace or the parent
 * route), so those two are sent percent-encoded; the transport sends the path as written.
 */
export function namespaceSegment(namespace: string): string {
  return namespace === '.' || namespace === '..' ? '%2E'.repeat(namespace.length) : encodeURIComponent(namespace);
}
