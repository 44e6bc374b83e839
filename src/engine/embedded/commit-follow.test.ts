import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IndexEngine, SearchEngine } from '../contract.js';
import { prepareDocuments } from '../query/document-validation.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
import type { StoreChange } from './document-store.js';
import type { EmbeddedEngine } from './embedded-engine.js';
import { FilterMatches } from './filter-matches.js';
import { SegmentedVectors } from './segmented-vectors.js';
import { TextShards } from './text-shards/text-shards.js';

/**
 * A commit stands once SQLite took it. An in-memory index that then fails to follow it is dropped
 * and rebuilt at its next use, so the write is neither refused after the fact nor hidden from
 * searches until the index reopens.
 */
describe('in-memory indexes after a commit they failed to follow', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: SearchEngine;
  let index: IndexEngine;
  let logs: [string, string | undefined][];
  let shards: TextShards;

  beforeEach(async () => {
    temp = tempDir();
    logs = [];
    shards = new TextShards(2, logger);
    engine = testEngine(temp.dir, { logger, shardPool: shards });
    index = await engine.open('idx');
    await index.upsert(
      'ns',
      [
        { id: 'alpha', content: { text: 'alpha particle' }, metadata: { kind: 'x' } },
        { id: 'beta', content: { text: 'beta decay' }, metadata: { kind: 'y' } },
      ],
      NO_LIMIT,
    );
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await engine.close();
    temp.remove();
  });

  const logAt = (level: string) => (_entry: object, message?: string) => logs.push([level, message]);
  const logger = { info: logAt('info'), warn: logAt('warn'), error: logAt('error') };

  /** What was logged above info (a reconciled graph's info line depends on timing). */
  const problems = () => logs.filter(([level]) => level !== 'info');

  /**
   * Makes `method` throw the first time `additions` of its arguments is non-empty (empty updates
   * come with every write and would use the failure up); returns whether it has thrown.
   */
  function failOnceWithAdditions<T extends object>(
    prototype: T,
    method: keyof T & string,
    additions: (...args: unknown[]) => unknown[],
  ): () => boolean {
    const original = prototype[method] as (...args: unknown[]) => unknown;
    let thrown = false;
    vi.spyOn(prototype, method as never).mockImplementation(function (this: unknown, ...args: unknown[]) {
      if (!thrown && additions(...args).length > 0) {
        thrown = true;
        throw new Error('out of memory');
      }
      return original.apply(this, args);
    } as never);
    return () => thrown;
  }

  const fullText = (query: string, filter?: string) =>
    index.search('ns', searchRequest(query, { semanticWeight: 0, filter })).then(({ hits }) => hits.map((h) => h.id));

  /** Kills a text shard thread and waits until the engine has heard of it. */
  async function killShard(): Promise<void> {
    shards.crash(0);
    await vi.waitFor(() => expect(logs.map(([, message]) => message)).toContain(SHARD_EXITED));
  }
  const SHARD_EXITED = 'a text shard worker exited; open namespaces are rebuilt from SQLite';

  it('rebuilds a full-text index whose shard died, and serves the writes committed meanwhile', async () => {
    expect(await fullText('particle')).toEqual(['alpha']); // the namespace's full-text index is built
    await killShard();

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT);

    expect(await fullText('ray')).toEqual(['gamma']);
    expect((await fullText('particle decay')).sort()).toEqual(['alpha', 'beta']);
    await indexed(index);
    expect((await index.search('ns', searchRequest('gamma ray', { semanticWeight: 1, topK: 1 }))).hits).toMatchObject([
      { id: 'gamma' },
    ]);
  });

  it('takes a write sent to a shard as it dies, also when the write waits for its vectors', async () => {
    await engine.close();
    shards = new TextShards(2, logger);
    engine = testEngine(temp.dir, { indexingBacklog: 0, logger, shardPool: shards });
    index = await engine.open('idx');
    expect(await fullText('particle')).toEqual(['alpha']);
    shards.crash(0);

    await expect(index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT)).resolves.toBe(
      undefined,
    );

    expect(await fullText('ray')).toEqual(['gamma']);
    await indexed(index);
    expect((await index.info()).vectorCount).toBe(3);
  });

  it('forgets cached filter matches that failed to take a write', async () => {
    expect(await fullText('particle ray', "@metadata.kind = 'x'")).toEqual(['alpha']); // cached for this filter
    const failed = failOnceWithAdditions(FilterMatches.prototype, 'changed', (_nsId, added) => added as unknown[]);

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' }, metadata: { kind: 'x' } }], NO_LIMIT);
    await indexed(index);

    expect(failed()).toBe(true);
    expect((await fullText('particle ray', "@metadata.kind = 'x'")).sort()).toEqual(['alpha', 'gamma']);
    expect(problems()).toEqual([['error', 'updating the filter matches after a commit failed; it will be rebuilt']]);
  });

  it('reloads vector graphs that failed to take a write from their file and SQLite', async () => {
    const semantic = searchRequest('gamma ray', { semanticWeight: 1, topK: 1 });
    expect((await index.search('ns', semantic)).hits.map((hit) => hit.id)).not.toEqual(['gamma']); // graphs loaded
    const failed = failOnceWithAdditions(SegmentedVectors.prototype, 'changed', (added) => added as unknown[]);

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT);
    await indexed(index);

    expect(failed()).toBe(true);
    expect((await index.info()).pendingVectorCount).toBe(0);
    // Every vector is in a graph again (the search's full-text side would find gamma regardless).
    const nearest = vi.spyOn(SegmentedVectors.prototype, 'nearest');
    expect((await index.search('ns', semantic)).hits.map((hit) => hit.id)).toEqual(['gamma']);
    expect(await nearest.mock.results[0].value).toHaveLength(3);
    expect(problems()).toEqual([['error', 'updating the vector graphs after a commit failed; it will be rebuilt']]);
  });

  it('applies a batch of changes to every namespace when their shard dies meanwhile', async () => {
    // As a PostgreSQL node's catch-up does: changes decided elsewhere, with their labels, in one call.
    await (engine as EmbeddedEngine).use('idx', async (local) => {
      const upsert = async (namespace: string, label: number, id: string, text: string): Promise<StoreChange> => {
        const [doc] = prepareDocuments([{ id, content: { text } }]);
        const [vector] = await local.embedDocuments(namespace, [doc]);
        return { kind: 'upsert', namespace, label, doc, vector };
      };
      await local.apply([await upsert('first', 101, 'f0', 'ferry boat'), await upsert('second', 102, 's0', 'sailing')]);
      const search = (namespace: string, query: string) =>
        local.search(namespace, searchRequest(query, { semanticWeight: 0 })).then(({ hits }) => hits.map((h) => h.id));
      expect(await search('first', 'ferry')).toEqual(['f0']);
      expect(await search('second', 'sailing')).toEqual(['s0']);
      const changes = [
        await upsert('first', 103, 'f1', 'ferry terminal'),
        await upsert('second', 104, 's1', 'sailing regatta'),
      ];
      shards.crash(1);

      await local.apply(changes);

      expect(await search('second', 'regatta')).toEqual(['s1']);
      expect(await search('first', 'terminal')).toEqual(['f1']);
    });
  });

  it('resets a namespace whose index files cannot be removed, and serves it afterwards', async () => {
    expect(await fullText('particle', "@metadata.kind = 'x'")).toEqual(['alpha']);
    await indexed(index);
    // A snapshot path that cannot be removed as a file (rm refuses a directory).
    fs.mkdirSync(path.join(temp.dir, 'indexes', 'idx', 'fulltext-1.0-of-2.snap', 'stuck'), { recursive: true });

    await index.reset('ns');

    expect(await fullText('particle', "@metadata.kind = 'x'")).toEqual([]);
    expect(logs).toEqual([['error', "removing a cleared namespace's index files failed"]]);
    await index.upsert('ns', [{ id: 'delta', content: { text: 'delta particle' }, metadata: { kind: 'x' } }], NO_LIMIT);
    expect(await fullText('particle', "@metadata.kind = 'x'")).toEqual(['delta']);
    expect(await index.search('ns', searchRequest('delta particle', { semanticWeight: 1, topK: 5 }))).toMatchObject({
      hits: [{ id: 'delta' }],
    });
  });
});
