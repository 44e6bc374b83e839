import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SearchEngine } from '../contract.js';
import type { EngineLogger } from '../providers/provider-types.js';
import {
  busyFor,
  syntheticEmbedder as createSyntheticEmbedder,
  indexed,
  NO_LIMIT,
  searchRequest,
  tempDir,
  testEngine,
  syntheticVector as vectorOf,
} from '../test-fixtures.js';
import { HnswWorker } from './hnsw-worker-client.js';
import { mainThreadLoad } from './main-thread-load.js';
import { NamespaceVectors } from './namespace-vectors.js';
import { codeDot, encodeVector } from './vector-codes.js';

const DIMENSIONS = 32;

const syntheticEmbedder = createSyntheticEmbedder('synthetic-worker-test', DIMENSIONS);
const syntheticVector = (text: string) => vectorOf(text, DIMENSIONS);

const docs = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `doc${from + i}`, content: { v: `d${from + i}` } }));

describe('HNSW indexing in the worker thread', () => {
  const temp = tempDir();
  let engine: SearchEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });
  afterAll(() => temp.remove());

  it('keeps searches exact and deletions invisible while a large batch is being indexed', async () => {
    engine = testEngine(temp.dir, { embedder: syntheticEmbedder, indexingBatchSize: 16 });
    const index = await engine.open('busy');
    for (let start = 0; start < 6000; start += 1000) await index.upsert('', docs(start, 1000), NO_LIMIT);
    await index.delete('', { ids: Array.from({ length: 100 }, (_, i) => `doc${i * 60}`) });
    let checkedWhilePending = 0;
    for (let round = 0; round < 200; round++) {
      const pending = (await index.info()).pendingVectorCount;
      const n = (round * 37 + 1) % 6000;
      const { hits } = await index.search('', searchRequest(`d${n}`, { semanticWeight: 1, topK: 3 }));
      if (n % 60 === 0) expect(hits.map((hit) => hit.id)).not.toContain(`doc${n}`);
      else expect(hits[0].id).toBe(`doc${n}`);
      if (pending > 0) checkedWhilePending++;
      else if (round > 20) break;
    }
    expect(checkedWhilePending).toBeGreaterThan(5);
    await indexed(index);
    const info = await index.info();
    expect([info.vectorCount, info.pendingVectorCount]).toEqual([5900, 0]);
    const { hits } = await index.search('', searchRequest('d4321', { semanticWeight: 1, topK: 1 }));
    expect(hits[0].id).toBe('doc4321');
  });

  it('keeps building graphs while the main thread is busy, and finishes them', async () => {
    engine = testEngine(temp.dir, { embedder: syntheticEmbedder });
    const index = await engine.open('paced');
    await index.upsert('', docs(0, 3000), NO_LIMIT);
    let busyRounds = 0;
    for (let round = 0; round < 1000 && (await index.info()).pendingVectorCount > 0; round++) {
      busyFor(40); // the main thread at work, as during a bulk ingest
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (Atomics.load(mainThreadLoad.flag, 0) === 1) busyRounds++;
    }
    expect(busyRounds).toBeGreaterThan(0);
    const info = await index.info();
    expect([info.vectorCount, info.pendingVectorCount]).toEqual([3000, 0]);
    const { hits } = await index.search('', searchRequest('d2345', { semanticWeight: 1, topK: 1 }));
    expect(hits[0].id).toBe('doc2345');
  });

  it('closes during indexing, persists the graph, and a reopen has every document', async () => {
    engine = testEngine(temp.dir, { embedder: syntheticEmbedder });
    let index = await engine.open('closing');
    await index.upsert('', docs(0, 3000), NO_LIMIT);
    await index.delete('', { ids: ['doc7'] });
    // Close mid-way: some vectors in the graph, the rest still pending.
    for (let pending = 2999; pending > 2800; pending = (await index.info()).pendingVectorCount) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect((await index.info()).pendingVectorCount).toBeGreaterThan(0);
    await engine.close();
    const files = [0, 1].map((i) => path.join(temp.dir, 'indexes', 'closing', `vectors-1.${i}-of-2.hnsw`));
    expect(files.map((file) => fs.existsSync(file))).toEqual([true, true]);

    engine = testEngine(temp.dir, { embedder: syntheticEmbedder });
    index = await engine.open('closing');
    const info = await index.info();
    expect(info.vectorCount).toBe(2999);
    expect(info.pendingVectorCount).toBeLessThan(2999); // part of them came from the file
    await indexed(index);
    for (const n of [0, 1500, 2999]) {
      const { hits } = await index.search('', searchRequest(`d${n}`, { semanticWeight: 1, topK: 1 }));
      expect(hits[0].id).toBe(`doc${n}`);
    }
    const { hits } = await index.search('', searchRequest('d7', { semanticWeight: 1, topK: 5 }));
    expect(hits.map((hit) => hit.id)).not.toContain('doc7');
  });
});

/** The code of label n's vector: the synthetic vector of `d<n>`. */
const codeOf = (label: number) => encodeVector(syntheticVector(`d${label}`));

/**
 * A namespace graph of labels 1..count (vectors from {@link codeOf}) in a worker of its own, both
 * disposed of after the enclosing describe.
 */
function graphOfLabels(count: number, logger: EngineLogger, batchSize: number) {
  const temp = tempDir();
  const worker = new HnswWorker(logger);
  const labels = Array.from({ length: count }, (_, i) => i + 1);
  const vectors = new NamespaceVectors(
    path.join(temp.dir, 'vectors.hnsw'),
    DIMENSIONS,
    { m: 16, efConstruction: 100, efSearch: 64 },
    { liveLabels: () => labels, vectors: (wanted) => new Map(wanted.map((label) => [label, codeOf(label)])) },
    logger,
    worker,
    batchSize,
  );
  afterAll(async () => {
    await vectors.dispose(true);
    await worker.terminate();
    temp.remove();
  });
  return { worker, vectors };
}

describe('HNSW worker failures', () => {
  const errors: object[] = [];
  const logger: EngineLogger = { info() {}, warn() {}, error: (o) => errors.push(o) };
  const { worker, vectors } = graphOfLabels(200, logger, 64);

  async function drained(): Promise<void> {
    while (vectors.pendingCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  it('rejects a failing request with the worker’s error', async () => {
    await vectors.load();
    await drained();
    const [best] = await vectors.nearest(syntheticVector('d42'), 1);
    expect(best.label).toBe(42);
    await expect(vectors.nearest(new Float32Array(3), 1)).rejects.toThrow(/vector index worker/);
  });

  it('fails in-flight requests when the worker dies, logs it, and reloads the graph in a new worker', async () => {
    const search = vectors.nearest(syntheticVector('d42'), 1);
    worker.crash();
    const late = vectors.nearest(syntheticVector('d42'), 1);
    await expect(search).resolves.toBeDefined(); // answered before the crash message was read
    await expect(late).rejects.toThrow(/exited/);
    expect(errors).toContainEqual(expect.objectContaining({ code: 1 }));
    // Until the reload, the graph is gone: nothing pending, nothing found, no hang.
    expect(await vectors.nearest(syntheticVector('d42'), 1)).toEqual([]);
    await vectors.load(); // the reload (also scheduled by itself) reads the file or rebuilds from the source
    await drained();
    const [best] = await vectors.nearest(syntheticVector('d42'), 1);
    expect(best.label).toBe(42);
  });
});

describe('exact scores from the vectors in memory', () => {
  const { vectors } = graphOfLabels(3000, { info() {}, warn() {}, error() {} }, 256);

  it('scores graph and pending vectors as codeDot scores the stored codes, and leaves out the rest', async () => {
    await vectors.load();
    while (vectors.pendingCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    vectors.changed([{ label: 5000, vector: codeOf(5000) }], []); // pending: not sent to the graph yet
    const query = syntheticVector('q');
    const scores = new Map<number, number>();
    await vectors.scores(query, [1, 2999, 5000, 7777], scores);
    expect([...scores.keys()].sort((a, b) => a - b)).toEqual([1, 2999, 5000]);
    for (const [label, score] of scores) expect(score).toBe(codeDot(query, codeOf(label)));
    for (const hit of await vectors.nearest(query, 10)) expect(hit.score).toBe(codeDot(query, codeOf(hit.label)));
  });

  it('never returns a label deleted while the graph is being written', async () => {
    const query = syntheticVector('d42');
    expect((await vectors.nearest(query, 1))[0].label).toBe(42);
    vectors.changed([{ label: 5001, vector: codeOf(5001) }], []); // something to write
    while (vectors.pendingCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    // The worker takes these in order: the write starts, and the deletion waits for it to end.
    const writing = vectors.persist();
    vectors.changed([], [42]);
    const [nearest, scores] = await Promise.all([
      vectors.nearest(query, 5),
      (async () => {
        const out = new Map<number, number>();
        await vectors.scores(query, [42, 43], out);
        return out;
      })(),
    ]);
    await writing;
    expect(nearest.map((hit) => hit.label)).not.toContain(42);
    expect([...scores.keys()]).toEqual([43]);
  });
});

describe('exact neighbours by scanning the codes', () => {
  const count = 3000;
  const { vectors } = graphOfLabels(count, { info() {}, warn() {}, error() {} }, 512);

  it('answers with the exact top k where a scan costs about what a graph walk does', async () => {
    await vectors.load();
    while (vectors.pendingCount > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const codes = Array.from({ length: count }, (_, i) => codeOf(i + 1));
    for (let n = 0; n < 40; n++) {
      // Some queries are zero in most dimensions, as the builtin embedder's of short texts are.
      const query = syntheticVector(`q${n}`).map((x, d) => (n % 2 === 0 || d % 4 === 0 ? x : 0));
      const exact = codes
        .map((code, i) => ({ label: i + 1, score: codeDot(query, code) }))
        .sort((a, b) => b.score - a.score || a.label - b.label)
        .slice(0, 10);
      const found = (await vectors.nearest(query, 10)).slice(0, 10);
      expect(found.map((hit) => hit.score)).toEqual(exact.map((hit) => hit.score));
    }
  });
});
