/**
 * The native vector graph (native/vector-graph: hnswlib over 8-bit vector codes), compiled for
 * this machine by scripts/build-native.mjs during `npm ci`. Plain JS beside hnsw-worker.js, which
 * loads it: the addon's place relative to this file is the same from src/ and from dist/.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const vectorGraphDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../native/vector-graph');
const vectorGraphAddon = path.join(vectorGraphDir, 'build', 'Release', 'vector_graph.node');

/**
 * @typedef {{
 *   init(maxElements: number, m: number, efConstruction: number, seed: number): void,
 *   read(file: string): Promise<void>,
 *   write(file: string): Promise<void>,
 *   add(vector: Float32Array, label: number): void,
 *   remove(label: number): boolean,
 *   search(query: Float32Array, k: number, ef: number, allowed?: Float64Array):
 *     { labels: Float64Array, distances: Float32Array },
 *   scores(query: Float32Array, labels: Float64Array): Float64Array,
 *   scan(query: Float32Array, k: number, allowed?: Float64Array): { labels: Float64Array, scores: Float64Array },
 *   resize(maxElements: number): void,
 *   capacity(): number,
 *   count(): number,
 *   labels(): Float64Array,
 *   release(): void,
 * }} VectorGraphInstance
 */

/** @returns {new (dimensions: number) => VectorGraphInstance} */
function load() {
  if (!existsSync(vectorGraphAddon)) {
    throw new Error(
      `the native vector graph is not built (${vectorGraphAddon} is missing): run \`npm ci\` or \`npm run build:native\``,
    );
  }
  return createRequire(import.meta.url)(vectorGraphAddon).VectorGraph;
}

export const VectorGraph = load();
