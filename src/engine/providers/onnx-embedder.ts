import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../../errors.js';
import type { Embedder } from './provider-types.js';

/**
 * In-process sentence embeddings through `@huggingface/transformers` (ONNX Runtime on the CPU).
 * The package is optional and large (~470 MB with onnxruntime), so it is not a dependency: it is
 * resolved when this provider is created (a start without it fails with one line saying what to
 * install) and imported only on the first embed.
 */

/** The optional package, and the command that installs it (pinned in package.json). */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const INSTALL_HINT = 'npm run install:onnx';

export interface OnnxEmbedderConfig {
  /** A local model directory (absolute, or starting with `./` or `../`, or an existing directory) or a model id. */
  model: string;
  /** Where a model given by id is looked for, and downloaded to when remote loading works. */
  cacheDir: string;
  /** Longer inputs are cut to this many tokens, special tokens included (default 256). */
  maxTokens?: number;
  /** Texts per inference call; bounds memory (default 64). */
  batchSize?: number;
  /** `onnx/model_quantized.onnx` (8-bit, default) or `onnx/model.onnx`. */
  quantized?: boolean;
  /** `mean` over the real tokens (default; all-MiniLM, e5, gte) or the `cls` token's vector (bge). */
  pooling?: 'mean' | 'cls';
}

/** What this provider uses of the package; kept local so the build never needs the package's types. */
export interface TransformersModule {
  env: {
    localModelPath: string;
    allowLocalModels: boolean;
    allowRemoteModels: boolean;
    cacheDir: string | null;
    logLevel?: number;
  };
  AutoTokenizer: { from_pretrained(id: string, options?: object): Promise<TokenizerLike> };
  AutoModel: { from_pretrained(id: string, options?: object): Promise<ModelLike> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => TensorLike;
}

interface TokenizerLike {
  encode(text: string): number[];
  all_special_ids: number[];
  pad_token_id: number | null | undefined;
}

interface TensorLike {
  data: ArrayLike<number>;
  dims: number[];
}

type ModelLike = ((inputs: Record<string, TensorLike>) => Promise<Record<string, TensorLike | undefined>>) & {
  dispose?: () => Promise<unknown>;
};

export interface OnnxEmbedderDependencies {
  /** Throws when the package is not installed; must not load it. */
  resolvePackage?: () => void;
  /** Imports the package (on first embed). */
  loadPackage?: () => Promise<TransformersModule>;
}

const requireFromHere = createRequire(import.meta.url);

// A variable specifier keeps TypeScript and bundlers from resolving the optional package at build time.
const defaultDependencies: Required<OnnxEmbedderDependencies> = {
  resolvePackage: () => {
    requireFromHere.resolve(TRANSFORMERS_PACKAGE);
  },
  loadPackage: async () => (await import(TRANSFORMERS_PACKAGE as string)) as TransformersModule,
};

/** Whether the optional package is installed (without loading it). */
export function transformersInstalled(): boolean {
  try {
    defaultDependencies.resolvePackage();
    return true;
  } catch {
    return false;
  }
}

interface ModelSource {
  /** Id handed to `from_pretrained`, relative to `root`. */
  id: string;
  /** `env.localModelPath`: the directory holding `<id>/`. */
  root: string;
  /** Whether a missing file may be downloaded (model ids only). */
  remote: boolean;
  /** The model's directory when it is already on disk. */
  directory?: string;
}

/**
 * Creates the `onnx` embedder. Checks at once that the package is installed and that a local
 * model directory exists with its files, so a misconfigured start fails before it listens.
 * `name` is `onnx/<model>/<q8|fp32>` (plus `/cls` for CLS pooling): a local directory is named by
 * its last path segment.
 */
export function createOnnxEmbedder(config: OnnxEmbedderConfig, dependencies: OnnxEmbedderDependencies = {}): Embedder {
  const { resolvePackage, loadPackage } = { ...defaultDependencies, ...dependencies };
  try {
    resolvePackage();
  } catch {
    throw new Error(
      `SEARCHPLANE_EMBEDDINGS_PROVIDER=onnx needs the optional package ${TRANSFORMERS_PACKAGE}: run \`${INSTALL_HINT}\` in the searchplane directory`,
    );
  }
  const maxTokens = config.maxTokens ?? 256;
  const batchSize = config.batchSize ?? 64;
  const quantized = config.quantized ?? true;
  const pooling = config.pooling ?? 'mean';
  if (!Number.isInteger(maxTokens) || maxTokens < 2) throw new Error('onnx embedder needs maxTokens >= 2');
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('onnx embedder needs batchSize >= 1');
  const modelFile = quantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx';
  const source = modelSource(config);
  if (source.directory !== undefined) checkModelDirectory(source.directory, modelFile);
  let dimensions = source.directory === undefined ? undefined : hiddenSize(source.directory);

  // One inference at a time: memory stays at one batch, and ONNX Runtime already uses every core.
  // A query (one text) waits for the running batch only, not for the rest of an indexing call.
  const runs = createRunQueue();
  let loading: Promise<Loaded> | undefined;
  const load = () => {
    loading ??= loadModel(loadPackage, source, config.cacheDir, quantized).catch((error: unknown) => {
      loading = undefined; // a failed download may work next time
      throw error;
    });
    return loading;
  };

  return {
    name: `onnx/${source.id}/${quantized ? 'q8' : 'fp32'}${pooling === 'mean' ? '' : `/${pooling}`}`,
    get dimensions() {
      return dimensions;
    },
    async embed(texts) {
      if (texts.length === 0) return [];
      const loaded = await load();
      const encoded = texts.map((text) => truncate(loaded.tokenizer.encode(text), maxTokens, loaded.specialIds));
      // Shortest first, so each batch pads to similar lengths; results go back in input order.
      const order = encoded.map((_, index) => index).sort((a, b) => encoded[a].length - encoded[b].length);
      const vectors = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; start += batchSize) {
        const batch = order.slice(start, start + batchSize);
        const rows = batch.map((index) => encoded[index]);
        const pooled = await runs.run(texts.length === 1, () => embedBatch(loaded, rows, pooling));
        batch.forEach((index, position) => {
          vectors[index] = pooled[position];
        });
      }
      dimensions ??= vectors[0].length;
      return vectors;
    },
  };
}

interface Loaded {
  module: TransformersModule;
  tokenizer: TokenizerLike;
  model: ModelLike;
  specialIds: Set<number>;
  padId: number;
}

/** Runs tasks one at a time, urgent ones before the others waiting. */
function createRunQueue() {
  const urgent: (() => void)[] = [];
  const normal: (() => void)[] = [];
  let busy = false;
  const next = () => {
    const start = urgent.shift() ?? normal.shift();
    busy = start !== undefined;
    start?.();
  };
  return {
    run<T>(isUrgent: boolean, task: () => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        (isUrgent ? urgent : normal).push(() => {
          task().then(resolve, reject).finally(next);
        });
        if (!busy) next();
      });
    },
  };
}

/** A path-like value (or an existing directory) is a local model; anything else is a model id. */
function modelSource(config: OnnxEmbedderConfig): ModelSource {
  const { model } = config;
  const looksLikePath = path.isAbsolute(model) || /^\.\.?([/\\]|$)/.test(model);
  if (looksLikePath || isDirectory(model)) {
    const directory = path.resolve(model);
    return { id: path.basename(directory), root: path.dirname(directory), remote: false, directory };
  }
  const cached = path.join(config.cacheDir, model);
  return { id: model, root: config.cacheDir, remote: true, directory: isDirectory(cached) ? cached : undefined };
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

function checkModelDirectory(directory: string, modelFile: string): void {
  if (!isDirectory(directory)) {
    throw new Error(`onnx embedder: model directory ${directory} does not exist (SEARCHPLANE_EMBEDDINGS_MODEL)`);
  }
  const missing = ['config.json', 'tokenizer.json', 'tokenizer_config.json', modelFile].filter(
    (file) => !existsSync(path.join(directory, file)),
  );
  if (missing.length > 0) {
    throw new Error(
      `onnx embedder: model directory ${directory} lacks ${missing.join(', ')} (expected the layout of an ONNX export such as Xenova/all-MiniLM-L6-v2)`,
    );
  }
}

/** The vector size from the model's config.json, when it says. */
function hiddenSize(directory: string): number | undefined {
  try {
    const config = JSON.parse(readFileSync(path.join(directory, 'config.json'), 'utf8')) as { hidden_size?: unknown };
    return typeof config.hidden_size === 'number' ? config.hidden_size : undefined;
  } catch {
    throw new Error(`onnx embedder: ${path.join(directory, 'config.json')} is not valid JSON`);
  }
}

async function loadModel(
  loadPackage: () => Promise<TransformersModule>,
  source: ModelSource,
  cacheDir: string,
  quantized: boolean,
): Promise<Loaded> {
  let module: TransformersModule;
  try {
    module = await loadPackage();
  } catch (error) {
    throw new AppError(
      'service_unavailable',
      `onnx embedder: ${TRANSFORMERS_PACKAGE} could not be loaded (${messageOf(error)}); run \`${INSTALL_HINT}\``,
      { cause: error },
    );
  }
  // The library's settings are process-wide; every load sets all of them for its own model.
  const { env } = module;
  env.allowLocalModels = true;
  env.localModelPath = `${source.root}${path.sep}`;
  env.allowRemoteModels = source.remote;
  env.cacheDir = cacheDir;
  env.logLevel = 40; // LogLevel.ERROR: its warnings would bypass the service's logger
  const options = { local_files_only: !source.remote, cache_dir: cacheDir };
  try {
    const tokenizer = await module.AutoTokenizer.from_pretrained(source.id, options);
    const model = await module.AutoModel.from_pretrained(source.id, {
      ...options,
      dtype: quantized ? 'q8' : 'fp32',
      device: 'cpu',
    });
    return {
      module,
      tokenizer,
      model,
      specialIds: new Set(tokenizer.all_special_ids),
      padId: tokenizer.pad_token_id ?? 0,
    };
  } catch (error) {
    const where = source.remote
      ? `model "${source.id}" is not in ${path.join(cacheDir, source.id)} and could not be downloaded (${messageOf(error)}); copy its files there or set SEARCHPLANE_EMBEDDINGS_MODEL to a local directory`
      : `model ${path.join(source.root, source.id)} could not be loaded (${messageOf(error)})`;
    throw new AppError('service_unavailable', `onnx embedder: ${where}`, { cause: error });
  }
}

/**
 * Cuts a token sequence to `maxTokens`, keeping its trailing special tokens ([SEP] for BERT
 * models) as Python's tokenizers do: the model was trained on sequences that end with them.
 */
export function truncate(ids: number[], maxTokens: number, specialIds: Set<number>): number[] {
  if (ids.length <= maxTokens) return ids;
  let tail = ids.length;
  while (tail > 0 && specialIds.has(ids[tail - 1]) && ids.length - tail < maxTokens - 1) tail--;
  const suffix = ids.slice(tail);
  return [...ids.slice(0, maxTokens - suffix.length), ...suffix];
}

/** Runs one padded batch, pools each row over its real tokens (or takes its first), then L2-normalizes. */
async function embedBatch(loaded: Loaded, rows: number[][], pooling: 'mean' | 'cls'): Promise<Float32Array[]> {
  const length = Math.max(...rows.map((row) => row.length));
  const ids = new BigInt64Array(rows.length * length).fill(BigInt(loaded.padId));
  const mask = new BigInt64Array(rows.length * length);
  rows.forEach((row, r) => {
    row.forEach((id, t) => {
      ids[r * length + t] = BigInt(id);
      mask[r * length + t] = 1n;
    });
  });
  const { Tensor } = loaded.module;
  const dims = [rows.length, length];
  const outputs = await loaded.model({
    input_ids: new Tensor('int64', ids, dims),
    attention_mask: new Tensor('int64', mask, dims),
  });
  const hidden = outputs.last_hidden_state ?? outputs.token_embeddings;
  if (hidden?.dims.length !== 3 || hidden.dims[0] !== rows.length || hidden.dims[1] !== length) {
    throw new AppError('service_unavailable', 'onnx embedder: the model has no [batch, tokens, dims] output');
  }
  const size = hidden.dims[2];
  return rows.map((row, r) => {
    const vector = new Float32Array(size);
    const pooled = pooling === 'cls' ? 1 : row.length;
    for (let t = 0; t < pooled; t++) {
      const offset = (r * length + t) * size;
      for (let d = 0; d < size; d++) vector[d] += hidden.data[offset + d];
    }
    let norm = 0;
    for (let d = 0; d < size; d++) {
      vector[d] /= pooled;
      norm += vector[d] * vector[d];
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < size; d++) vector[d] /= norm;
    return vector;
  });
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${message}${cause}`.split('\n')[0];
}
