import { once } from 'node:events';
import { open, rename, rm } from 'node:fs/promises';

/** Where `docs export` writes: a file that appears only once complete, or stdout (`-`). */
export interface ExportOutput {
  write(text: string): Promise<void>;
  /** Makes the output final (the file gets its name). */
  commit(): Promise<void>;
  /** After a failure: removes the unfinished file, so `file` is complete or untouched. */
  abort(): Promise<void>;
}

/**
 * Opens the export target. A file is written as `<file>.partial` and renamed at the end, so an
 * export that stops half-way never leaves a file that looks complete.
 */
export async function openExportOutput(file: string): Promise<ExportOutput> {
  if (file === '-') {
    return {
      async write(text) {
        if (!process.stdout.write(text)) await once(process.stdout, 'drain');
      },
      async commit() {},
      async abort() {},
    };
  }
  const partial = `${file}.partial`;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(partial, 'w');
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
  let closed = false;
  const close = async () => {
    if (!closed) await handle.close();
    closed = true;
  };
  return {
    async write(text) {
      await handle.write(text);
    },
    async commit() {
      await close();
      await rename(partial, file);
    },
    async abort() {
      await close();
      await rm(partial, { force: true });
    },
  };
}
