import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IndexEngine, SearchEngine } from '../contract.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
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
    const logAt = (level: string) => (_entry: object, message?: string) => logs.push([level, message]);
    engine = testEngine(temp.dir, { logger: { info: logAt('info'), warn: logAt('warn'), error: logAt('error') } });
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
    engine = testEngine(temp.dir, { indexingBacklog: 0 }); // embedded and indexed within the write
    index = await engine.open('idx');
    expect(await fullText('particle')).toEqual(['alpha']);
    vi.spyOn(FullTextIndex.prototype, 'add').mockImplementationOnce(() => {
      throw new Error('out of memory');
    });

    await expect(index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT)).resolves.toBe(
      undefined,
    );

    expect(await fullText('ray')).toEqual(['gamma']);
  });

  it('forgets cached filter matches that failed to take a write', async () => {
    expect(await fullText('particle ray', "@metadata.kind = 'x'")).toEqual(['alpha']); // cached for this filter
    vi.spyOn(FilterMatches.prototype, 'changed').mockImplementationOnce(() => {
      throw new Error('disk I/O error');
    });

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' }, metadata: { kind: 'x' } }], NO_LIMIT);
    await indexed(index);

    expect((await fullText('particle ray', "@metadata.kind = 'x'")).sort()).toEqual(['alpha', 'gamma']);
    expect(logs).toEqual([['error', 'updating the filter matches after a commit failed; it will be rebuilt']]);
  });

  it('reloads vector graphs that failed to take a write', async () => {
    const semantic = searchRequest('gamma ray', { semanticWeight: 1, topK: 1 });
    expect((await index.search('ns', semantic)).hits.map((hit) => hit.id)).not.toEqual(['gamma']); // graphs loaded
    vi.spyOn(SegmentedVectors.prototype, 'changed').mockImplementationOnce(() => {
      throw new Error('out of memory');
    });

    await index.upsert('ns', [{ id: 'gamma', content: { text: 'gamma ray' } }], NO_LIMIT);
    await indexed(index);

    expect((await index.search('ns', semantic)).hits.map((hit) => hit.id)).toEqual(['gamma']);
    expect((await index.info()).pendingVectorCount).toBe(0);
    expect(logs).toEqual([['error', 'updating the vector graphs after a commit failed; it will be rebuilt']]);
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
