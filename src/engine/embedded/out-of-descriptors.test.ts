import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isOutOfDescriptors } from '../../errors.js';
import { toAppError } from '../../http/error-handler.js';
import type { SearchEngine } from '../contract.js';
import { indexed, NO_LIMIT, searchRequest, tempDir, testEngine } from '../test-fixtures.js';
import { descriptorsCanRunOut, withoutDescriptors } from './descriptor-hoard.test-fixtures.js';

/**
 * A file that cannot be opened for want of a descriptor is not a damaged file: the request fails
 * with a 503 and the next one reads the file, instead of rebuilding its index from SQLite.
 */
describe.skipIf(!descriptorsCanRunOut)('an index opened while the process has no file descriptor left', () => {
  const temp = tempDir();
  let engine: SearchEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    temp.remove();
  });

  it('fails the search that needs a graph file (503), then reads the file, not a rebuild', async () => {
    engine = testEngine(temp.dir);
    let index = await engine.open('idx');
    const docs = Array.from({ length: 300 }, (_, i) => ({ id: `d${i}`, content: { text: `document number ${i}` } }));
    await index.upsert('', docs, NO_LIMIT);
    await index.upsert('warm', [{ id: 'w', content: { text: 'warm up' } }], NO_LIMIT);
    await indexed(index);
    await engine.close();
    const graphFiles = [0, 1].map((i) => path.join(temp.dir, 'indexes', 'idx', `vectors-1.${i}-of-2.hnsw`));
    const written = graphFiles.map((file) => fs.statSync(file).mtimeMs);

    const logs: [string, string | undefined][] = [];
    const logAt = (level: string) => (_entry: object, message?: string) => logs.push([level, message]);
    engine = testEngine(temp.dir, { logger: { info: logAt('info'), warn: logAt('warn'), error: logAt('error') } });
    index = await engine.open('idx');
    // The worker thread starts (loading its modules takes descriptors) before they run out.
    await index.search('warm', searchRequest('warm', { semanticWeight: 1 }));
    const vectorSearch = searchRequest('document number 42', { semanticWeight: 1, topK: 3 });
    const starved = await withoutDescriptors(() => index.search('', vectorSearch));

    expect(isOutOfDescriptors(starved.error)).toBe(true);
    expect(toAppError(starved.error)).toMatchObject({ code: 'service_unavailable' });
    const { hits } = await index.search('', vectorSearch);
    expect(hits[0].id).toBe('d42');
    // Every vector came from the files, which are as they were: nothing was rebuilt.
    expect((await index.info()).pendingVectorCount).toBe(0);
    expect(graphFiles.map((file) => fs.statSync(file).mtimeMs)).toEqual(written);
    // A moment's shortage, answered 503: warnings (the full-text index that could not read its
    // documents is built again from SQLite), and no rebuild of the graphs.
    expect(logs.map(([level]) => level)).toEqual(logs.map(() => 'warn'));
    expect(logs).toContainEqual(['warn', 'loading vectors failed']);
  });
});
