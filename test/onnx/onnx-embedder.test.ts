import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createEmbedder } from '../../src/engine/index.js';
import {
  createOnnxEmbedder,
  TRANSFORMERS_PACKAGE,
  type TransformersModule,
  transformersInstalled,
  truncate,
} from '../../src/engine/providers/onnx-embedder.js';
import { AppError } from '../../src/errors.js';
import { DIMENSIONS, embeddingRow, tokenId, writeTinyModel } from './tiny-model.js';

/**
 * The `onnx` embedder against a tiny model these tests write themselves. The package-dependent
 * tests skip, with the reason in their title, only when the optional package is not installed:
 * `npm run install:onnx` installs it, and CI does so and runs `npm run test:onnx`.
 */
const installed = transformersInstalled();
const NEEDS_PACKAGE = installed
  ? 'with @huggingface/transformers'
  : 'SKIPPED: @huggingface/transformers is not installed (npm run install:onnx)';
if (!installed) console.warn(`onnx embedder tests against the tiny model ${NEEDS_PACKAGE}`);

let root: string;
let modelDir: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'onnx-embedder-'));
  modelDir = writeTinyModel(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The hand-computed sentence vector: mean of the embedding rows of the tokens, L2-normalized. */
function expected(tokens: string[], variant: 'quantized' | 'full' = 'quantized'): number[] {
  const sum = new Array<number>(DIMENSIONS).fill(0);
  for (const token of tokens) {
    embeddingRow(tokenId(token), variant).forEach((value, d) => {
      sum[d] += Math.fround(value);
    });
  }
  const mean = sum.map((value) => value / tokens.length);
  const norm = Math.hypot(...mean);
  return mean.map((value) => value / norm);
}

function expectVector(actual: Float32Array, wanted: number[]): void {
  expect(actual).toHaveLength(wanted.length);
  wanted.forEach((value, d) => {
    expect(actual[d]).toBeCloseTo(value, 5);
  });
}

const norm = (vector: Float32Array) => Math.hypot(...vector);

describe(`onnx embedder ${NEEDS_PACKAGE}`, () => {
  test.skipIf(!installed)('knows its name and dimensions from the model directory before loading', () => {
    const embedder = createOnnxEmbedder({ model: modelDir, cacheDir: root });
    expect(embedder.name).toBe('onnx/tiny-minilm/q8');
    expect(embedder.dimensions).toBe(DIMENSIONS);
    expect(createOnnxEmbedder({ model: modelDir, cacheDir: root, quantized: false }).name).toBe(
      'onnx/tiny-minilm/fp32',
    );
  });

  test.skipIf(!installed)(
    'a vector is the mean of the token rows, [CLS] and [SEP] included, L2-normalized',
    async () => {
      const embedder = createOnnxEmbedder({ model: modelDir, cacheDir: root });
      const [sentence, subwords, unknown] = await embedder.embed(['The CAT sat', 'cats', 'the zebra']);
      expectVector(sentence, expected(['[CLS]', 'the', 'cat', 'sat', '[SEP]']));
      expectVector(subwords, expected(['[CLS]', 'cat', '##s', '[SEP]']));
      expectVector(unknown, expected(['[CLS]', 'the', '[UNK]', '[SEP]']));
      for (const vector of [sentence, subwords, unknown]) expect(norm(vector)).toBeCloseTo(1, 6);
    },
  );

  test.skipIf(!installed)('the quantized setting picks onnx/model.onnx or onnx/model_quantized.onnx', async () => {
    const full = createOnnxEmbedder({ model: modelDir, cacheDir: root, quantized: false });
    const [vector] = await full.embed(['dog ran']);
    expectVector(vector, expected(['[CLS]', 'dog', 'ran', '[SEP]'], 'full'));
    const [quantized] = await createOnnxEmbedder({ model: modelDir, cacheDir: root }).embed(['dog ran']);
    expect(Array.from(quantized)).not.toEqual(Array.from(vector));
  });

  test.skipIf(!installed)('inputs are truncated to maxTokens (default 256), keeping [SEP]', async () => {
    const short = createOnnxEmbedder({ model: modelDir, cacheDir: root, maxTokens: 4 });
    const [cut] = await short.embed(['the cat sat on the mat']);
    expectVector(cut, expected(['[CLS]', 'the', 'cat', '[SEP]']));

    // 254 words fill the default 256 tokens with [CLS] and [SEP]; the words after them are dropped.
    const long = `${'the '.repeat(254)}${'dog '.repeat(40)}`;
    const [byDefault] = await createOnnxEmbedder({ model: modelDir, cacheDir: root }).embed([long]);
    expectVector(byDefault, expected(['[CLS]', ...new Array<string>(254).fill('the'), '[SEP]']));
  });

  test.skipIf(!installed)('batched texts of different lengths give the same vectors as single calls', async () => {
    const texts = ['the cat sat on the mat', 'dog', '', 'the dog ran far away', 'cats ran'];
    const batched = await createOnnxEmbedder({ model: modelDir, cacheDir: root, batchSize: 2 }).embed(texts);
    const single = createOnnxEmbedder({ model: modelDir, cacheDir: root, batchSize: 1 });
    expect(batched).toHaveLength(texts.length);
    for (const [index, text] of texts.entries()) {
      const [alone] = await single.embed([text]);
      expect(Array.from(batched[index])).toEqual(Array.from(alone));
    }
    expectVector(batched[2], expected(['[CLS]', '[SEP]']));
    expect(await single.embed([])).toEqual([]);
  });

  test.skipIf(!installed)('cls pooling takes the first token of each row, padded or not', async () => {
    const embedder = createOnnxEmbedder({ model: modelDir, cacheDir: root, pooling: 'cls', batchSize: 2 });
    expect(embedder.name).toBe('onnx/tiny-minilm/q8/cls');
    const vectors = await embedder.embed(['the cat sat on the mat', 'dog']);
    for (const vector of vectors) expectVector(vector, expected(['[CLS]']));
  });

  test.skipIf(!installed)('createEmbedder builds it from the service configuration', async () => {
    const embedder = createEmbedder({ provider: 'onnx', model: modelDir, cacheDir: root, maxTokens: 4 });
    expect(embedder.name).toBe('onnx/tiny-minilm/q8');
    const [vector] = await embedder.embed(['the cat sat on the mat']);
    expectVector(vector, expected(['[CLS]', 'the', 'cat', '[SEP]']));
  });

  describe('a model id', () => {
    let closedPort: number;
    beforeAll(async () => {
      // A port nobody listens on: the "hub" for these tests, so no request leaves the machine.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closedPort = (server.address() as { port: number }).port;
      await new Promise((resolve) => server.close(resolve));
    });
    const offlineHub = async () => {
      const module = (await import(TRANSFORMERS_PACKAGE)) as TransformersModule & { env: { remoteHost: string } };
      module.env.remoteHost = `http://127.0.0.1:${closedPort}/`;
      return module;
    };

    test.skipIf(!installed)('is loaded from the cache directory when its files are there', async () => {
      const cacheDir = path.join(root, 'cache-hit');
      cpSync(modelDir, path.join(cacheDir, 'acme', 'tiny-minilm'), { recursive: true });
      const embedder = createOnnxEmbedder({ model: 'acme/tiny-minilm', cacheDir }, { loadPackage: offlineHub });
      expect(embedder.name).toBe('onnx/acme/tiny-minilm/q8');
      expect(embedder.dimensions).toBe(DIMENSIONS);
      const [vector] = await embedder.embed(['dog']);
      expectVector(vector, expected(['[CLS]', 'dog', '[SEP]']));
    });

    test.skipIf(!installed)(
      'that cannot be downloaded fails with one clear error, and loads once its files are copied',
      async () => {
        const cacheDir = path.join(root, 'cache-miss');
        const embedder = createOnnxEmbedder({ model: 'acme/tiny-minilm', cacheDir }, { loadPackage: offlineHub });
        expect(embedder.dimensions).toBeUndefined();
        const failure = await embedder.embed(['dog']).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(AppError);
        expect((failure as AppError).code).toBe('service_unavailable');
        expect((failure as AppError).message).toContain(path.join(cacheDir, 'acme', 'tiny-minilm'));
        expect((failure as AppError).message).not.toContain('\n');

        // The next embed tries again. The library may still have a sibling request of the failed
        // load in flight (it fetches tokenizer files in parallel) and hands that to the next load,
        // so the retry is polled rather than expected to work at once.
        cpSync(modelDir, path.join(cacheDir, 'acme', 'tiny-minilm'), { recursive: true });
        const [vector] = await vi.waitFor(() => embedder.embed(['dog']), { timeout: 10_000, interval: 50 });
        expectVector(vector, expected(['[CLS]', 'dog', '[SEP]']));
        expect(embedder.dimensions).toBe(DIMENSIONS);
      },
    );
  });
});

// These use injected loaders and run whether or not the package is installed.
describe('onnx embedder with an injected package', () => {
  const present = () => {};

  test('without the package, creating it fails with one line naming what to install', () => {
    const missing = () => {
      throw Object.assign(new Error(`Cannot find module '${TRANSFORMERS_PACKAGE}'`), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => createOnnxEmbedder({ model: modelDir, cacheDir: root }, { resolvePackage: missing })).toThrow(
      /^SEARCHPLANE_EMBEDDINGS_PROVIDER=onnx needs the optional package @huggingface\/transformers: run `npm run install:onnx`[^\n]*$/,
    );
  });

  test('a package that fails to import fails the first embed with service_unavailable', async () => {
    const embedder = createOnnxEmbedder(
      { model: modelDir, cacheDir: root },
      { resolvePackage: present, loadPackage: () => Promise.reject(new Error('libonnxruntime.so.1: cannot open')) },
    );
    const failure = await embedder.embed(['dog']).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('service_unavailable');
    expect((failure as AppError).message).toContain('npm run install:onnx');
  });

  test('a missing model directory fails at creation, naming the directory', () => {
    const missing = path.join(root, 'no-such-model');
    expect(() => createOnnxEmbedder({ model: missing, cacheDir: root }, { resolvePackage: present })).toThrow(
      `model directory ${missing} does not exist`,
    );
  });

  test('a model directory without the chosen model file fails at creation, naming the file', () => {
    const partial = path.join(root, 'partial');
    cpSync(modelDir, partial, { recursive: true });
    rmSync(path.join(partial, 'onnx', 'model.onnx'));
    expect(() => createOnnxEmbedder({ model: partial, cacheDir: root }, { resolvePackage: present })).not.toThrow();
    expect(() =>
      createOnnxEmbedder({ model: partial, cacheDir: root, quantized: false }, { resolvePackage: present }),
    ).toThrow('lacks onnx/model.onnx');
  });

  test('one inference runs at a time, and a query goes before the waiting batches of an indexing call', async () => {
    // A stand-in for the package: words are token ids (their first letter), the model echoes them.
    const encoded: string[] = [];
    const runs: string[] = [];
    let running = 0;
    let mostRunning = 0;
    let releaseFirst!: () => void;
    const firstRun = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const module = {
      env: {},
      Tensor: class {
        constructor(
          readonly type: string,
          readonly data: BigInt64Array,
          readonly dims: number[],
        ) {}
      },
      AutoTokenizer: {
        from_pretrained: async () => ({
          encode: (text: string) => {
            encoded.push(text);
            return [2, text.charCodeAt(0), 3];
          },
          all_special_ids: [2, 3],
          pad_token_id: 0,
        }),
      },
      AutoModel: {
        from_pretrained: async () => async (inputs: { input_ids: { data: BigInt64Array; dims: number[] } }) => {
          runs.push(String.fromCharCode(Number(inputs.input_ids.data[1])));
          running++;
          mostRunning = Math.max(mostRunning, running);
          if (runs.length === 1) await firstRun;
          running--;
          const [batch, length] = inputs.input_ids.dims;
          return {
            last_hidden_state: { data: new Float32Array(batch * length * 2).fill(1), dims: [batch, length, 2] },
          };
        },
      },
    } as unknown as TransformersModule;
    const embedder = createOnnxEmbedder(
      { model: modelDir, cacheDir: root, batchSize: 1 },
      { resolvePackage: present, loadPackage: async () => module },
    );
    const indexing = embedder.embed(['a', 'b', 'c']);
    await vi.waitFor(() => expect(runs).toEqual(['a']));
    const query = embedder.embed(['q']);
    await vi.waitFor(() => expect(encoded).toContain('q')); // queued behind the running batch
    releaseFirst();
    expect(await query).toHaveLength(1);
    expect(await indexing).toHaveLength(3);
    expect(runs).toEqual(['a', 'q', 'b', 'c']);
    expect(mostRunning).toBe(1);
  });

  test('truncation keeps the trailing special tokens', () => {
    const special = new Set([2, 3]);
    expect(truncate([2, 10, 11, 12, 3], 4, special)).toEqual([2, 10, 11, 3]);
    expect(truncate([2, 10, 11, 12, 3], 5, special)).toEqual([2, 10, 11, 12, 3]);
    expect(truncate([10, 11, 12, 13], 2, special)).toEqual([10, 11]);
  });
});
