import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A tiny sentence-embedding "model" laid out like an ONNX export of all-MiniLM-L6-v2, written by
 * the tests themselves (no download): a BERT WordPiece tokenizer with a handful of words, and an
 * ONNX graph whose `last_hidden_state` is a Gather of a small embedding matrix by `input_ids`.
 * Mean pooling of its output is therefore the mean of the matrix rows of the tokens, which a test
 * can compute by hand.
 */

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export const WORDS = ['the', 'cat', 'sat', 'on', 'mat', 'dog', 'ran', 'far', 'away', '##s'] as const;
export const VOCAB: readonly string[] = [...SPECIAL_TOKENS, ...WORDS];
export const DIMENSIONS = 4;

/** Row `id` of the embedding matrix. Every row differs, none is zero ([PAD] included, so padding that leaks into pooling shows). */
export function embeddingRow(id: number, variant: 'quantized' | 'full' = 'quantized'): number[] {
  const row = Array.from({ length: DIMENSIONS }, (_, d) => ((id * 7 + d * 3) % 11) - 4.5 + id / 10);
  return variant === 'quantized' ? row : row.map((value, d) => value + (d === 0 ? 3 : 0));
}

export function tokenId(token: string): number {
  const id = VOCAB.indexOf(token);
  if (id < 0) throw new Error(`no token ${token}`);
  return id;
}

/** Writes `<root>/<name>/` with config.json, tokenizer files and onnx/model(_quantized).onnx. */
export function writeTinyModel(root: string, name = 'tiny-minilm'): string {
  const directory = path.join(root, name);
  mkdirSync(path.join(directory, 'onnx'), { recursive: true });
  const json = (file: string, value: unknown) => writeFileSync(path.join(directory, file), JSON.stringify(value));
  json('config.json', {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: DIMENSIONS,
    vocab_size: VOCAB.length,
    max_position_embeddings: 512,
    pad_token_id: 0,
  });
  json('tokenizer.json', tokenizerJson());
  json('tokenizer_config.json', {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 512,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    mask_token: '[MASK]',
    clean_up_tokenization_spaces: true,
  });
  writeFileSync(path.join(directory, 'onnx', 'model_quantized.onnx'), onnxModel('quantized'));
  writeFileSync(path.join(directory, 'onnx', 'model.onnx'), onnxModel('full'));
  return directory;
}

function tokenizerJson(): object {
  const special = (token: string) => ({ SpecialToken: { id: token, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [
        special('[CLS]'),
        { Sequence: { id: 'A', type_id: 0 } },
        special('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((token) => [token, { id: token, ids: [tokenId(token)], tokens: [token] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCAB.map((token, id) => [token, id])),
    },
  };
}

// --- A minimal protobuf writer: just what an ONNX ModelProto needs. -------------------------------

type Field = Buffer;

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

const intField = (field: number, value: number): Field => Buffer.concat([varint(field << 3), varint(value)]);
const bytesField = (field: number, value: Buffer | string): Field => {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return Buffer.concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
};
const message = (field: number, ...parts: Field[]): Field => bytesField(field, Buffer.concat(parts));

const ONNX_FLOAT = 1;
const ONNX_INT64 = 7;

/** ValueInfoProto for a tensor whose dims are symbolic names or sizes. */
function valueInfo(field: number, name: string, elemType: number, dims: (string | number)[]): Field {
  const shape = dims.map((dim) => message(1, typeof dim === 'number' ? intField(1, dim) : bytesField(2, dim)));
  const tensorType = message(1, intField(1, elemType), message(2, ...shape));
  return message(field, bytesField(1, name), message(2, tensorType));
}

/** ModelProto: opset 13, graph `last_hidden_state = Gather(embeddings, input_ids)`. */
export function onnxModel(variant: 'quantized' | 'full'): Buffer {
  const matrix = Buffer.alloc(VOCAB.length * DIMENSIONS * 4);
  VOCAB.forEach((_, id) => {
    embeddingRow(id, variant).forEach((value, d) => {
      matrix.writeFloatLE(value, (id * DIMENSIONS + d) * 4);
    });
  });
  const initializer = message(
    5,
    intField(1, VOCAB.length),
    intField(1, DIMENSIONS),
    intField(2, ONNX_FLOAT),
    bytesField(8, 'embeddings'),
    bytesField(9, matrix),
  );
  const gather = message(
    1,
    bytesField(1, 'embeddings'),
    bytesField(1, 'input_ids'),
    bytesField(2, 'last_hidden_state'),
    bytesField(3, 'lookup'),
    bytesField(4, 'Gather'),
  );
  const graph = message(
    7,
    gather,
    bytesField(2, 'tiny-minilm'),
    initializer,
    // attention_mask and token_type_ids are unused, as pooling must mask padding itself; they are
    // declared because the real export takes them (and the library fills token_type_ids).
    valueInfo(11, 'input_ids', ONNX_INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', ONNX_INT64, ['batch', 'sequence']),
    valueInfo(11, 'token_type_ids', ONNX_INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', ONNX_FLOAT, ['batch', 'sequence', DIMENSIONS]),
  );
  return Buffer.concat([
    intField(1, 8), // ir_version
    bytesField(2, 'searchplane-tests'),
    graph,
    message(8, bytesField(1, ''), intField(2, 13)),
  ]);
}
