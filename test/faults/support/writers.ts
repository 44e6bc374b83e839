import { api } from '../../blackbox/support/http-client.js';

/** What a writer saw: ids acknowledged (200), answers by status, and when writes were acknowledged. */
export interface WriterLog {
  acknowledged: string[];
  statuses: Map<number, number>;
  /** performance.now() of each acknowledgement, in order. */
  acknowledgedAt: number[];
  /** performance.now() of each answer other than 200, in order. */
  refusedAt: number[];
  /** The longest any one request took, in ms. */
  longestMs: number;
}

export interface Writer {
  log: WriterLog;
  /** Stops after the request in flight; resolves when it has. */
  stop(): Promise<void>;
}

/**
 * Upserts one document at a time through one node (`<prefix><n>`), the next only after the last
 * was answered; a refused write (503 while the database fails over) is sent again under a new
 * id after a short pause, so every id acknowledged is one write the service promised to keep.
 */
export function startWriter(baseUrl: string, endpoint: string, token: string, prefix: string): Writer {
  const log: WriterLog = { acknowledged: [], statuses: new Map(), acknowledgedAt: [], refusedAt: [], longestMs: 0 };
  let stopped = false;
  let n = 0;
  const done = (async () => {
    while (!stopped) {
      const id = `${prefix}${n++}`;
      const sent = performance.now();
      let status: number;
      try {
        status = (
          await api(baseUrl, 'POST', `/indexes/${endpoint}/upsert-data/ns`, {
            bearer: token,
            body: [{ id, content: { text: `written through ${prefix} as ${id}` } }],
          })
        ).status;
      } catch {
        status = 0; // the connection failed: no answer at all
      }
      log.longestMs = Math.max(log.longestMs, performance.now() - sent);
      log.statuses.set(status, (log.statuses.get(status) ?? 0) + 1);
      if (status === 200) {
        log.acknowledged.push(id);
        log.acknowledgedAt.push(performance.now());
      } else {
        log.refusedAt.push(performance.now());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  })();
  return {
    log,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** The ids among `ids` that `baseUrl` does not return (fetched by id, 1,000 at a time). */
export async function missingIds(baseUrl: string, endpoint: string, token: string, ids: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (let i = 0; i < ids.length; i += 1000) {
    const chunk = ids.slice(i, i + 1000);
    const answer = await api(baseUrl, 'POST', `/indexes/${endpoint}/fetch/ns`, { bearer: token, body: { ids: chunk } });
    if (answer.status !== 200) throw new Error(`fetch answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    answer.body.result.forEach((doc: unknown, j: number) => {
      if (doc === null) missing.push(chunk[j]);
    });
  }
  return missing;
}

/** Resolves once `condition` holds, polling every 100 ms, or rejects after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * How long after `from` the writer was acknowledged again once the fault had reached it: from
 * `from` to its first acknowledgement after its first refusal after `from` (undefined: never refused).
 */
export function resumedAfter(log: WriterLog, from: number): number | undefined {
  const refused = log.refusedAt.find((at) => at >= from);
  if (refused === undefined) return undefined;
  const resumed = log.acknowledgedAt.find((at) => at > refused);
  return resumed === undefined ? undefined : resumed - from;
}
