import { availableParallelism } from 'node:os';
import type { EngineLogger } from '../../providers/provider-types.js';
import { WorkerClient } from '../worker-client.js';
import type { ShardRequest } from './text-shard-protocol.js';

/** Text shard threads by default: one per core, at most 4 (a search waits for the slowest shard). */
export function defaultTextShards(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * The engine's text shard worker threads (text-shard.worker.ts). Every namespace is split into one
 * shard per thread, a document version going to shard `label % count`, so that indexing and every
 * search use all of them. When a thread dies, every namespace loses a shard: each key's listener
 * hears it, and its owner builds the namespace again from SQLite.
 */
export class TextShards {
  private readonly clients: WorkerClient[];
  private readonly listeners = new Map<string, () => void>();

  constructor(
    readonly count: number,
    private readonly logger: EngineLogger,
  ) {
    if (!Number.isInteger(count) || count < 1) throw new Error('text shards must be a positive integer');
    this.clients = Array.from(
      { length: count },
      () =>
        new WorkerClient(
          'text shard worker',
          new URL('./text-shard-entry.js', import.meta.url),
          {},
          {
            failed: (error) => this.logger.error({ err: error }, 'a text shard worker failed'),
            exited: (code, expected) => this.exited(code, expected),
          },
        ),
    );
  }

  /** Sends a request to shard `shard`. */
  request(shard: number, message: ShardRequest, transfer: ArrayBuffer[] = []): Promise<unknown> {
    return this.clients[shard].request(message as unknown as Record<string, unknown>, transfer);
  }

  /** Calls `listener` once if a thread dies while `key` is registered. */
  watch(key: string, listener: () => void): void {
    this.listeners.set(key, listener);
  }

  unwatch(key: string): void {
    this.listeners.delete(key);
  }

  /** Makes shard `shard`'s thread die of an uncaught error (tests of the failure path). */
  crash(shard: number): void {
    this.clients[shard].post({ type: 'crash' });
  }

  /** Stops every thread (what they hold is lost). */
  async terminate(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.terminate()));
  }

  private exited(code: number, expected: boolean): void {
    if (!expected) this.logger.error({ code }, 'a text shard worker exited; open namespaces are rebuilt from SQLite');
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener();
  }
}
