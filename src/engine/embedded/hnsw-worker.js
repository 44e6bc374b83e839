/**
 * The HNSW worker thread (plain JS so that Vitest, which runs src/, and Node, which runs dist/,
 * load the same file; tsc copies it to dist with allowJs). It owns every open namespace graph of
 * the engine: loads them, inserts the vectors the main thread sends (in slices, so searches are
 * answered between them), applies deletions, searches and writes them. Protocol: see
 * hnsw-worker-client.ts. Requests carry an `id` and get one reply `{ id, result }` or
 * `{ id, error }`; insertion progress is reported as `{ type: 'added', graph, labels }`.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { descriptorRefusal } from '../../descriptor-refusal.js';
import { replaceFileDurably } from './durable-file.js';
import { collectGarbage } from './exposed-gc.js';
import { lowerPrioritySuffices, lowerThreadPriority } from './thread-priority.js';
import { VectorGraph } from './vector-graph-addon.js';

// Small: a graph allocates its capacity up front, and an index may have thousands of namespaces with a
// few documents each (each with a graph per worker). It grows by half as it fills (ensureCapacity).
const MIN_CAPACITY = 64;
/** Longest stretch of insertion before incoming searches get their turn. */
const SLICE_MS = 3;
/**
 * Graph building runs at the lowest priority (nice 19 for this thread): the scheduler then gives
 * it every cycle the main thread leaves and none the main thread wants, so requests and ingest are
 * not slowed by it while no core sits idle (the pacing below, used where the priority cannot be
 * lowered, leaves part of a core idle during a burst of writes). The cost: where other processes keep every core
 * busy, graph building and the graph searches of this worker wait for them. With one CPU or under
 * a CPU quota the priority is left alone and the pacing below is used (see lowerPrioritySuffices).
 */
const WORKER_NICE = 19;
let lowered = false;
// Threads inherit the nice value of the thread that creates them, and libuv's thread pool (file
// I/O, scrypt, DNS for the whole process) is created by its first user: make sure it exists before
// this thread lowers itself.
stat('.')
  .catch(() => undefined)
  .then(() => {
    lowered = lowerPrioritySuffices() && lowerThreadPriority(WORKER_NICE);
  });
/**
 * Where the priority could not be lowered: while the main thread is busy (main-thread-load.ts), a
 * slice is followed by this many slices' worth of pause, so graph building takes about
 * 1/(1 + factor) of a core per worker and the rest goes to requests and ingest on the main thread.
 * On 2 cores, unpaced building by 2 workers at normal priority left the main thread half a core
 * and cut acknowledged ingest by about 40%.
 */
const BUSY_PAUSE_FACTOR = 4;
/** Int32 slot 0 is 1 while the main thread is busy; absent (tests that start the worker alone): never. */
const mainThreadBusy = workerData?.mainThreadBusy ?? new Int32Array(1);
/**
 * Vectors inserted since the last collection after which an emptied queue triggers one: the
 * transferred batches (2 KB per 512-dimension vector) are dead once inserted, and an idle worker
 * allocates nothing that would make V8 collect them (see idle-collection.ts for the main thread).
 */
const COLLECT_AFTER_VECTORS = 10_000;
let insertedSinceCollection = 0;

/**
 * @typedef {{ labels: Float64Array, vectors: Float32Array, next: number }} Batch
 * @typedef {{ index: import('./vector-graph-addon.js').VectorGraphInstance, file: string, dimensions: number,
 *   queue: Batch[], queued: Set<number>, deletions: number[], dirty: boolean,
 *   writing: Promise<void> | undefined }} Graph
 */

/** @type {Map<string, Graph>} */
const graphs = new Map();
let scheduled = false;

const port = parentPort;
if (!port) throw new Error('hnsw-worker.js must run in a worker thread');

port.on('message', (message) => {
  if (message.type === 'crash') throw new Error('crash requested'); // tests: an uncaught worker error
  if (message.id === undefined) return;
  handle(message).then(
    ({ result, transfer }) => port.postMessage({ id: message.id, result }, transfer ?? []),
    (error) =>
      port.postMessage({
        id: message.id,
        error: {
          message: error instanceof Error ? error.message : String(error),
          stack: error?.stack,
          // A system error's code (EMFILE...) decides the answer the main thread gives.
          code: typeof error?.code === 'string' ? error.code : undefined,
        },
      }),
  );
});

/** @returns {Promise<{ result: unknown, transfer?: ArrayBuffer[] }>} */
async function handle(message) {
  switch (message.type) {
    case 'open':
      return open(message);
    case 'add': {
      const graph = graphOf(message.graph);
      graph.queue.push({ labels: message.labels, vectors: message.vectors, next: 0 });
      for (const label of message.labels) graph.queued.add(label);
      schedule();
      return { result: null };
    }
    case 'delete':
      return { result: remove(graphOf(message.graph), message.labels) };
    case 'search':
      return search(graphOf(message.graph), message);
    case 'scores':
      return scores(graphOf(message.graph), message);
    case 'persist':
      return { result: await persist(graphOf(message.graph)) };
    case 'close':
      return { result: await close(message.graph, message.persist) };
    default:
      throw new Error(`unknown request ${message.type}`);
  }
}

function graphOf(id) {
  const graph = graphs.get(id);
  if (!graph) throw new Error(`vector graph ${id} is not open`);
  return graph;
}

/**
 * Reads the graph file (a new empty graph when missing or unreadable) and returns its labels.
 * Fails, with the system's code, when the file could not be read for want of a file descriptor.
 */
async function open({ graph: id, file, dimensions, m, efConstruction }) {
  let index;
  let unreadable;
  if (existsSync(file)) {
    try {
      index = new VectorGraph(dimensions);
      await index.read(file);
    } catch (error) {
      // The addon only says it could not open the file, as for a damaged one. Without a descriptor
      // left the file is fine: this open fails (the request gets a 503 and the next one reads the
      // file) rather than rebuilding a graph from SQLite, which costs minutes for a large namespace.
      const refusal = descriptorRefusal();
      if (refusal) throw Object.assign(new Error(`no file descriptor left to read ${file}`), { code: refusal });
      unreadable = error instanceof Error ? error.message : String(error);
      index = undefined;
    }
  }
  const rebuilt = !index;
  if (!index) {
    index = new VectorGraph(dimensions);
    index.init(MIN_CAPACITY, m, efConstruction, 42);
  }
  graphs.set(id, {
    index,
    file,
    dimensions,
    queue: [],
    queued: new Set(),
    deletions: [],
    dirty: rebuilt,
    writing: undefined,
  });
  const labels = rebuilt ? new Float64Array(0) : index.labels();
  return { result: { labels, unreadable }, transfer: [labels.buffer] };
}

/** Deletes labels (queued ones never reach the graph); returns how many were in the graph. */
function remove(graph, labels) {
  let deleted = 0;
  for (const label of labels) {
    if (graph.queued.delete(label)) continue;
    if (graph.writing) graph.deletions.push(label);
    else if (graph.index.remove(label)) {
      deleted++;
      graph.dirty = true;
    }
  }
  return deleted;
}

/**
 * An exact scan of the graph's codes replaces a graph walk when it reads at most this many code
 * components per unit of the walk's ef: the scan then costs up to about twice the walk (in
 * docs/performance.md, "Exact vector scans"), for every true neighbour instead of most. A scan
 * reads only the dimensions where the query is not zero; the builtin embedder's vector of a short
 * query has about a tenth of them, a dense model's has all, so its queries scan only small graphs.
 */
const SCAN_COMPONENTS_PER_EF = 25_000;

/** The nearest neighbours' labels (exact ones when a scan is cheap enough) with their exact scores (see scores). */
function search(graph, { query, k, ef, allowed }) {
  const { index } = graph;
  const count = index.count();
  if (count === 0) return { result: { labels: new Float64Array(0), scores: new Float64Array(0) } };
  const limit = Math.min(k, count);
  const walkEf = Math.max(ef, limit);
  if (nonZeros(query) * count <= SCAN_COMPONENTS_PER_EF * walkEf) {
    const found = index.scan(query, limit, allowed);
    return withoutDeferredDeletions(graph, found.labels, found.scores);
  }
  const { labels } = index.search(query, limit, walkEf, allowed);
  return scores(graph, { query, labels });
}

function nonZeros(vector) {
  let count = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) count++;
  return count;
}

/**
 * Each label's exact cosine with the query, from the code the graph holds (as SQLite holds it);
 * NaN for a label the graph does not hold or that is deleted, including deletions deferred while
 * the graph is being written.
 */
function scores(graph, { query, labels }) {
  return withoutDeferredDeletions(graph, labels, graph.index.scores(query, labels));
}

/** Scores NaN for the labels whose deletion waits for the graph's write to end. */
function withoutDeferredDeletions(graph, labels, scores) {
  for (const label of graph.deletions) {
    const at = labels.indexOf(label);
    if (at >= 0) scores[at] = Number.NaN;
  }
  return { result: { labels, scores }, transfer: [labels.buffer, scores.buffer] };
}

/** Writes the graph when it changed (temp file, flushed, renamed); mutations wait meanwhile. */
async function persist(graph) {
  while (graph.writing) await graph.writing;
  applyDeletions(graph);
  if (!graph.dirty) return false;
  graph.dirty = false;
  graph.writing = (async () => {
    try {
      await replaceFileDurably(graph.file, (temp) => graph.index.write(temp));
    } catch (error) {
      graph.dirty = true;
      throw error;
    } finally {
      graph.writing = undefined;
      schedule();
    }
  })();
  await graph.writing;
  return true;
}

/** Drops queued insertions, writes the graph when `persist` (and it changed), and forgets it. */
async function close(id, persistFirst) {
  const graph = graphs.get(id);
  if (!graph) return false;
  graph.queue.length = 0;
  graph.queued.clear();
  try {
    if (persistFirst) return await persist(graph);
    while (graph.writing) await graph.writing.catch(() => undefined);
    return false;
  } finally {
    graphs.delete(id);
    // Its memory is outside V8's heap, which would not hurry to collect the object.
    if (!graph.writing) graph.index.release();
  }
}

function applyDeletions(graph) {
  if (graph.deletions.length === 0) return;
  for (const label of graph.deletions.splice(0)) if (graph.index.remove(label)) graph.dirty = true;
}

function ensureCapacity(graph) {
  const { index } = graph;
  const needed = index.count() + graph.queued.size;
  const max = index.capacity();
  if (needed > max) index.resize(Math.max(needed, Math.ceil(max * 1.5)));
}

function schedule(pause = 0) {
  if (scheduled) return;
  scheduled = true;
  if (pause > 0) setTimeout(indexSlice, pause);
  else setImmediate(indexSlice);
}

/** Inserts queued vectors for up to SLICE_MS, reporting each graph's progress. */
function indexSlice() {
  scheduled = false;
  const deadline = performance.now() + SLICE_MS;
  let more = false;
  // A snapshot, and each graph served goes to the back: no namespace starves the others.
  for (const [id, graph] of [...graphs]) {
    if (graph.writing) continue;
    applyDeletions(graph);
    if (graph.queue.length === 0) continue;
    if (performance.now() > deadline) {
      more = true;
      continue;
    }
    ensureCapacity(graph);
    graphs.delete(id);
    graphs.set(id, graph);
    const done = [];
    const { index, dimensions } = graph;
    while (graph.queue.length > 0 && (done.length === 0 || performance.now() < deadline)) {
      const batch = graph.queue[0];
      if (batch.next === batch.labels.length) {
        graph.queue.shift();
        continue;
      }
      const i = batch.next++;
      const label = batch.labels[i];
      done.push(label); // acknowledged even when deleted meanwhile: the main thread ignores those
      if (!graph.queued.delete(label)) continue;
      try {
        const start = i * dimensions;
        index.add(batch.vectors.subarray(start, start + dimensions), label);
        graph.dirty = true;
        insertedSinceCollection++;
      } catch (error) {
        // Stays out of the graph until the next reconciliation with SQLite (reopen) adds it back.
        port.postMessage({ type: 'failed', graph: id, label, error: String(error?.message ?? error) });
      }
    }
    if (graph.queue.length > 0 && graph.queue[0].next === graph.queue[0].labels.length) graph.queue.shift();
    const labels = Float64Array.from(done);
    port.postMessage({ type: 'added', graph: id, labels }, [labels.buffer]);
    if (graph.queue.length > 0) more = true;
  }
  if (more) schedule(!lowered && Atomics.load(mainThreadBusy, 0) === 1 ? SLICE_MS * BUSY_PAUSE_FACTOR : 0);
  else if (insertedSinceCollection >= COLLECT_AFTER_VECTORS) {
    insertedSinceCollection = 0;
    collectGarbage();
  }
}
