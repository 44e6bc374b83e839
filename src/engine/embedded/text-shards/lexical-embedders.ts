import { createBuiltinEmbedder } from '../../providers/builtin-embedder.js';
import type { Embedder } from '../../providers/provider-types.js';

const BUILTIN = /^builtin-hash-v2\/(\d+)$/;

/**
 * The embedder named `name` when it is one the text shards can run: a lexical embedder made from
 * the document's analysis (`embedTerms`), deterministic and without state of its own, so a worker
 * thread can build the same one from its name. Undefined for every other embedder.
 */
export function lexicalEmbedder(name: string): Embedder | undefined {
  const builtin = BUILTIN.exec(name);
  return builtin ? createBuiltinEmbedder(Number(builtin[1])) : undefined;
}
