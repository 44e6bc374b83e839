import { once } from 'node:events';
import { rmSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { UsageError } from '../../cli-support.js';

/** Where `docs export` writes: a file that appears only once complete, or stdout (`-`). */
export interface ExportOutput {
  write(text: string): Promise<void>;
  /** Makes the output final (the file gets its name). */
  commit(): Promise<void>;
  /** After a failure: removes the unfinished file, so `file` is complete or untouched. */
  abort(): Promise<void>;
}

/** Exit codes of a command stopped by a signal, as a shell reports them (128 + signal number). */
const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Refuses, before anything is downloaded, a target the export could not be renamed to at the
 * end: an existing directory.
 */
export function checkExportTarget(file: string): void {
  if (file === '-') return;
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    return; // absent (the usual case) or unreadable: opening `<file>.partial` reports it
  }
  if (isDirectory) throw new UsageError(`cannot export to ${file}: it is a directory (give a file name)`);
}

/**
 * Opens the export target. A file is written as `<file>.partial` and renamed at the end, so an
 * export that stops half-way never leaves a file that looks complete; on SIGINT or SIGTERM the
 * partial file is removed before the process exits (130 or 143).
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
  checkExportTarget(file);
  const partial = `${file}.partial`;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(partial, 'w');
  } catch (error) {
    throw new Error(`cannot write ${file}: ${(error as Error).message}`);
  }
  const onSignal = (signal: NodeJS.Signals) => {
    rmSync(partial, { force: true });
    process.exit(SIGNAL_EXIT[signal] ?? 1);
  };
  const signals = Object.keys(SIGNAL_EXIT) as NodeJS.Signals[];
  for (const signal of signals) process.once(signal, onSignal);
  let closed = false;
  const close = async () => {
    if (!closed) await handle.close();
    closed = true;
  };
  // The handlers go only once the partial file is renamed or removed: a signal in between still
  // removes it (after the rename, rmSync finds nothing to remove).
  const release = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  return {
    async write(text) {
      await handle.write(text);
    },
    async commit() {
      try {
        await close();
        await rename(partial, file);
      } finally {
        release();
      }
    },
    async abort() {
      try {
        await close();
        await rm(partial, { force: true });
      } finally {
        release();
      }
    },
  };
}
