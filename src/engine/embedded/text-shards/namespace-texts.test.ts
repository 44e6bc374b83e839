import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SearchEngine } from '../../contract.js';
import { NO_LIMIT, searchRequest, tempDir, testEngine } from '../../test-fixtures.js';

describe('full-text snapshots', () => {
  it('are removed with their namespace, with the temp file a crash during a write left', async () => {
    const temp = tempDir();
    const engine = testEngine(temp.dir);
    try {
      const index = await engine.open('small');
      await index.upsert('gone', [{ id: 'a', content: { text: 'alpha' } }], NO_LIMIT);
      const file = path.join(temp.dir, 'indexes', 'small', 'fulltext-1.1-of-2.snap');
      const older = path.join(temp.dir, 'indexes', 'small', 'fulltext-1.snap'); // one shard wrote it
      fs.writeFileSync(file, 'a snapshot');
      fs.writeFileSync(`${file}.tmp`, 'half a snapshot');
      fs.writeFileSync(older, 'a snapshot');
      await index.deleteNamespace('gone');
      expect(fs.existsSync(file)).toBe(false);
      expect(fs.existsSync(`${file}.tmp`)).toBe(false);
      expect(fs.existsSync(older)).toBe(false);
    } finally {
      await engine.close();
      temp.remove();
    }
  });

  it('reopens from its snapshot reconciled with SQLite, and rebuilds from SQLite without one', async () => {
    const temp = tempDir();
    const files = [0, 1].map((shard) => path.join(temp.dir, 'indexes', 'big', `fulltext-1.${shard}-of-2.snap`));
    const docs = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ({
        id: `d${from + i}`,
        content: { text: `entry ${from + i} about ${(from + i) % 97} things` },
      }));
    const ids = async (engine: SearchEngine, query: string) =>
      (await (await engine.open('big')).search('', searchRequest(query, { semanticWeight: 0, topK: 5 }))).hits.map(
        (hit) => hit.id,
      );
    try {
      let engine = testEngine(temp.dir);
      let index = await engine.open('big');
      await index.upsert('', docs(0, 6000), NO_LIMIT);
      expect(await ids(engine, 'entry 4242')).toContain('d4242'); // builds the full-text index
      await engine.close();
      const stale = files.map((file) => fs.readFileSync(file));

      // Changes after that snapshot: the reopened index must see them all.
      engine = testEngine(temp.dir);
      index = await engine.open('big');
      await index.upsert('', docs(6000, 6100), NO_LIMIT);
      await index.delete('', { ids: ['d4242'] });
      const expected = await ids(engine, 'entry 6050 4242');
      await engine.close();
      // As if the last close had not written them (a crash).
      files.forEach((file, shard) => {
        fs.writeFileSync(file, stale[shard]);
      });

      engine = testEngine(temp.dir);
      expect(await ids(engine, 'entry 6050 4242')).toEqual(expected);
      expect(expected).toContain('d6050');
      expect(expected).not.toContain('d4242');
      await engine.close();

      for (const file of files) fs.writeFileSync(file, 'not a snapshot');
      engine = testEngine(temp.dir);
      expect(await ids(engine, 'entry 6050 4242')).toEqual(expected);
      await engine.close();
    } finally {
      temp.remove();
    }
  });
});
