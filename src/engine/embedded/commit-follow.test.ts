import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IndexEngine, SearchEngine } from '../contract.js';
import type { AnalyzedDocument } from '../query/analyzer.js';
import { prepareDocuments } from '../query/document-validation.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
import type { StoreChange } from './document-store.js';
import type { EmbeddedEngine } from './embedded-engine.js';
import { FilterMatches } from './filter-matches.js';
import { FullTextIndex } from './full-text/full-text-index.js';
import { SegmentedVectors } from './segmented-vectors.js';

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

  beforeEach(async () => {
    temp = tempDir();
    logs = [];
    engine = testEngine(temp.dir, { logger });
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

  it('rebuilds a full-text index that failed to take a write, which stands', async () => {
    expect(await fullText('particle')).toEqual(['alpha']); // the namespace's full-text index is built
    vi.spyOn(FullTextIndex.prototype, 'add').mockImplementationOnce(() => {
      throw new Error('out of memory');
    });

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT);

    expect(await fullText('ray')).toEqual(['gamma']);
    expect(await fullText('particle decay')).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(logs).toEqual([['error', 'updating the full-text index after a commit failed; it will be rebuilt']]);
  });

  it('takes a write whose full-text update fails when it is indexed before it commits', async () => {
    await engine.close();
    engine = testEngine(temp.dir, { indexingBacklog: 0, logger }); // embedded and indexed within the write
    index = await engine.open('idx');
    expect(await fullText('particle')).toEqual(['alpha']);
    logs.length = 0;
    const failed = failOnceWithAdditions(FullTextIndex.prototype, 'add', (label) => [label]);

    await expect(index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT)).resolves.toBe(
      undefined,
    );

    expect(failed()).toBe(true);
    expect(await fullText('ray')).toEqual(['gamma']);
    expect(problems()).toEqual([['error', 'updating the full-text index after a commit failed; it will be rebuilt']]);
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

  it('applies a batch of changes to every namespace when one namespace fails to follow', async () => {
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
      const failed = failOnceWithAdditions(FullTextIndex.prototype, 'add', (_label, analyzed) =>
        (analyzed as AnalyzedDocument).surfaces.includes('terminal') ? [analyzed] : [],
      );

      await local.apply([
        await upsert('first', 103, 'f1', 'ferry terminal'),
        await upsert('second', 104, 's1', 'sailing regatta'),
      ]);

      expect(failed()).toBe(true);
      expect(await search('second', 'regatta')).toEqual(['s1']);
      expect(await search('first', 'terminal')).toEqual(['f1']);
    });
  });

  it('resets a namespace whose index files cannot be removed, and serves it afterwards', async () => {
    expect(await fullText('particle', "@metadata.kind = 'x'")).toEqual(['alpha']);
    await indexed(index);
    // A snapshot path that cannot be removed as a file (rm refuses a directory).
    fs.mkdirSync(path.join(temp.dir, 'indexes', 'idx', 'fulltext-1.snap', 'stuck'), { recursive: true });

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
