/** A document as `range` returns it with data and metadata. */
export interface RangeDocument {
  id: string;
  content?: unknown;
  metadata?: unknown;
}

export interface RangePage {
  nextCursor: string;
  vectors: RangeDocument[];
}

export interface ExportOptions {
  /** One `range` call; `cursor` is "" for the first page. */
  range: (cursor: string) => Promise<RangePage>;
  /** Writes the lines of one page (each ending in `\n`); resolves once the output can take more. */
  write: (text: string) => Promise<void>;
  onProgress?: (exported: number) => void;
}

/**
 * Pages through a namespace with `range` until `nextCursor` is "" and writes each document as
 * one JSON line `{"id","content","metadata"}` — the format `docs import` reads back.
 * Returns how many documents were written.
 */
export async function exportDocuments(options: ExportOptions): Promise<number> {
  let exported = 0;
  let cursor = '';
  do {
    const page = await options.range(cursor);
    const lines = page.vectors.map((document) => {
      const line: RangeDocument = { id: document.id, content: document.content ?? {} };
      if (document.metadata !== undefined && document.metadata !== null) line.metadata = document.metadata;
      return `${JSON.stringify(line)}\n`;
    });
    if (lines.length > 0) await options.write(lines.join(''));
    exported += page.vectors.length;
    options.onProgress?.(exported);
    // A page without documents but with a cursor would loop forever on a misbehaving server.
    cursor = page.vectors.length > 0 ? page.nextCursor : '';
  } while (cursor !== '');
  return exported;
}
