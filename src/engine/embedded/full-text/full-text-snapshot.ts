import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { errors, isOutOfDescriptors } from '../../../errors.js';
import { replaceFileDurably } from '../durable-file.js';
import type { FullTextState } from './full-text-index.js';

/*
 * A namespace's full-text index on disk, so that reopening an index does not re-analyze every
 * document: `SPFT` + format version, a JSON header (counts, terms, surface forms), then the
 * document arrays of FullTextState. It is a cache: whatever it lacks or holds in excess is
 * reconciled with SQLite after loading, and an unreadable file is simply rebuilt from SQLite.
 */

/** Version 2: documents analyzed with their numbers and booleans (query/text-tokens.ts); a version 1 file is rebuilt. */
const MAGIC = Buffer.from('SPFT0002');

export async function writeFullTextSnapshot(file: string, state: FullTextState): Promise<void> {
  const header = Buffer.from(
    JSON.stringify({
      documents: state.labels.length,
      postings: state.termIds.length,
      terms: state.terms,
      surfaces: state.surfaces,
    }),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const parts = [
    MAGIC,
    length,
    header,
    ...[state.labels, state.lengths, state.termCounts, state.termIds, state.tfs].map(bytes),
  ];
  await replaceFileDurably(file, (temp) => writeFile(temp, Buffer.concat(parts)));
}

/**
 * The state in `file`; undefined when there is none or it cannot be read, and then the index is
 * rebuilt from SQLite. Without a file descriptor left to read it, a 503 instead: the file is fine,
 * and a rebuild costs seconds for a large namespace.
 */
export function readFullTextSnapshot(file: string): FullTextState | undefined {
  // Asked first, without a descriptor: opening a missing file also fails when none is left.
  if (!existsSync(file)) return undefined;
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch (error) {
    if (isOutOfDescriptors(error)) throw errors.outOfDescriptors(error);
    return undefined;
  }
  try {
    if (!data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const headerLength = data.readUInt32LE(MAGIC.length);
    let offset = MAGIC.length + 4;
    const header = JSON.parse(data.toString('utf8', offset, offset + headerLength)) as {
      documents: number;
      postings: number;
      terms: string[];
      surfaces: string[];
    };
    offset += headerLength;
    const take = <T>(Kind: { new (buffer: ArrayBuffer): T; BYTES_PER_ELEMENT: number }, count: number): T => {
      const size = count * Kind.BYTES_PER_ELEMENT;
      if (offset + size > data.length) throw new Error('truncated');
      // A copy: a slice of the file's buffer is not aligned for the wider element types.
      const view = new Kind(
        data.buffer.slice(data.byteOffset + offset, data.byteOffset + offset + size) as ArrayBuffer,
      );
      offset += size;
      return view;
    };
    const state: FullTextState = {
      terms: header.terms,
      surfaces: header.surfaces,
      labels: take(Float64Array, header.documents),
      lengths: take(Uint32Array, header.documents),
      termCounts: take(Uint32Array, header.documents),
      termIds: take(Uint32Array, header.postings),
      tfs: take(Uint16Array, header.postings),
    };
    return offset === data.length ? state : undefined;
  } catch {
    return undefined;
  }
}

function bytes(array: ArrayBufferView): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}
