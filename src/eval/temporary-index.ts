import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.js';
import {
  createEmbeddedEngine,
  createEmbedder,
  createEnricher,
  createReranker,
  type EngineLogger,
  type IndexEngine,
} from '../engine/index.js';

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
 * index in it. Until closed, SIGINT/SIGTERM remove the temp dir and exit at once: an interrupted
 * evaluation must not leave an index of a whole collection behind in /tmp.
 */
export async function openTemporaryIndex(config: Config, logger: EngineLogger): Promise<TemporaryIndex> {
  const dir = mkdtempSync(join(tmpdir(), 'searchplane-eval-'));
  const embedder = createEmbedder(config.embeddings);
  const engine = createEmbeddedEngine({
    dataDir: dir,
    embedder,
    reranker: createReranker(config.rerank),
    enricher: createEnricher({ ...config.enrichment, logger }),
    logger,
  });
  const onSignal = (signal: NodeJS.Signals) => {
    // Synchronous on purpose: closing the engine could wait on a busy HNSW worker, and the
    // person pressing Ctrl-C wants out now. Deleting open files is fine; the process ends next.
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`searchplane eval: interrupted (${signal}); removed ${dir}\n`);
    process.exit(SIGNAL_EXIT_CODES[signal] ?? 1);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        await engine.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
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
