import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { createEmbeddedEngine, type EngineLogger, type IndexEngine } from '../engine/index.js';
import { engineOptions } from '../engine-setup.js';

/** A throw-away index in its own temp dir, built the way the server builds its engine. */
export interface TemporaryIndex {
  index: IndexEngine;
  /** The temp dir holding the index files; gone after {@link TemporaryIndex.close}. */
  dir: string;
  /** Name of the embedder the configuration chose (e.g. `builtin-…`), for the report. */
  embedderName: string;
  /** Closes the engine and removes the temp dir; safe to call more than once. */
  close(): Promise<void>;
}

/** Exit code after an interrupt: 128 + the signal number, as shells report it. */
const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Opens an embedded engine over a fresh temp dir with the embedder, reranker and enricher of
 * `config` (as src/app.ts does, so an evaluation measures what the server would serve), and one
 * index in it. Until closed, SIGINT/SIGTERM close the engine, remove the temp dir and exit (130 or
 * 143; a second signal exits at once): an interrupted evaluation must not leave an index of a
 * whole collection behind in /tmp.
 */
export async function openTemporaryIndex(config: Config, logger: EngineLogger): Promise<TemporaryIndex> {
  const dir = mkdtempSync(join(tmpdir(), 'searchplane-eval-'));
  const options = engineOptions(config, dir, logger);
  const { embedder } = options;
  const engine = createEmbeddedEngine(options);
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = SIGNAL_EXIT_CODES[signal] ?? 1;
    if (interrupted) {
      // A second signal: do not wait for the engine any longer. Deleting open files is fine.
      rmSync(dir, { recursive: true, force: true });
      process.exit(code);
    }
    interrupted = true;
    process.stderr.write(`searchplane eval: interrupted (${signal}); removing ${dir}\n`);
    // The engine is closed before exiting, not abandoned: exiting while the HNSW worker thread is
    // inside the native addPoint aborts the process (napi fatal error).
    void close().finally(() => process.exit(code));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      try {
        await engine.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
        // After an interrupt the handlers stay, so that a second signal still cleans up and exits.
        if (!interrupted) {
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      }
    })();
    return closing;
  };
  try {
    return { index: await engine.open('eval'), dir, embedderName: embedder.name, close };
  } catch (error) {
    await close();
    throw error;
  }
}
