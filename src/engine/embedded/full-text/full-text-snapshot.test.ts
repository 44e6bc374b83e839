import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeFields, analyzeQuery } from '../../query/analyzer.js';
import { tempDir } from '../../test-fixtures.js';
import { descriptorsCanRunOut, withoutDescriptors } from '../descriptor-hoard.test-fixtures.js';
import { FullTextIndex, type FullTextIndexOptions } from './full-text-index.js';
import { readFullTextSnapshot, writeFullTextSnapshot } from './full-text-snapshot.js';

const WORDS = 'apple banana cherry delta echo falcon garden harbor island jungle kettle lemon'.split(' ');

function sample(count: number, options?: FullTextIndexOptions): FullTextIndex {
  const index = new FullTextIndex(options);
  for (let label = 1; label <= count; label++) {
    const words = Array.from({ length: 3 + (label % 7) }, (_, i) => WORDS[(label * (i + 3)) % WORDS.length]);
    index.add(label, analyzeFields([`Title ${WORDS[label % 12]}`, `${words.join(' ')} number${label % 50}`]));
  }
  return index;
}

describe('full-text snapshot', () => {
  const temp = tempDir();
  afterEach(() => fs.rmSync(path.join(temp.dir, 'snap'), { force: true }));

  it.each([
    ['its buffer', undefined],
    ['segments', { bufferDocuments: 64 }],
  ])('round-trips an index in %s through a file: same documents, same statistics, same answers', async (_, options) => {
    const index = sample(3000, options);
    for (let label = 1; label <= 3000; label += 3) index.remove(label); // holes and dead terms
    const file = path.join(temp.dir, 'snap');
    await writeFullTextSnapshot(file, index.toState());
    const restored = FullTextIndex.fromState(readFullTextSnapshot(file)!);
    expect(restored.size).toBe(index.size);
    expect([...restored.labelSet()].sort((a, b) => a - b)).toEqual([...index.labelSet()].sort((a, b) => a - b));
    expect(restored.documentFrequency('banana')).toBe(index.documentFrequency('banana'));
    expect(restored.trigramFrequency('ban')).toBe(index.trigramFrequency('ban'));
    for (const words of ['apple', 'banana cherry', 'title kettle number7', 'harbor island jungle']) {
      const query = analyzeQuery(words);
      expect(restored.search(query, 20)).toEqual(index.search(query, 20));
    }
    expect(restored.spellingCandidates('banan', 1)).toContain('banana');
  });

  it('a write that fails leaves no temp file, and what was in place stays', async () => {
    // A non-empty directory where the file goes: the temp file is written whole, the rename fails.
    const file = path.join(temp.dir, 'taken');
    fs.mkdirSync(path.join(file, 'inside'), { recursive: true });
    await expect(writeFullTextSnapshot(file, sample(100).toState())).rejects.toThrow();
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
    expect(fs.statSync(file).isDirectory()).toBe(true);
  });

  it('reads nothing from a missing, foreign or truncated file', async () => {
    const file = path.join(temp.dir, 'snap');
    expect(readFullTextSnapshot(file)).toBeUndefined();
    await writeFullTextSnapshot(file, sample(100).toState());
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 3));
    expect(readFullTextSnapshot(file)).toBeUndefined();
    fs.writeFileSync(file, Buffer.concat([Buffer.from('GARBAGE!'), bytes.subarray(8)]));
    expect(readFullTextSnapshot(file)).toBeUndefined();
  });

  it.skipIf(!descriptorsCanRunOut)(
    'without a file descriptor left: a 503 for a snapshot (not a rebuild), nothing for a missing one',
    async () => {
      const file = path.join(temp.dir, 'snap');
      await writeFullTextSnapshot(file, sample(100).toState());
      const starved = await withoutDescriptors(async () => readFullTextSnapshot(file));
      expect(starved.error).toMatchObject({ code: 'service_unavailable', cause: { code: 'EMFILE' } });
      // A missing file is known without a descriptor: the index is built from SQLite as usual.
      const missing = await withoutDescriptors(async () => readFullTextSnapshot(path.join(temp.dir, 'none')));
      expect(missing).toEqual({ value: undefined });
      expect(readFullTextSnapshot(file)?.labels.length).toBe(100);
    },
  );
});
