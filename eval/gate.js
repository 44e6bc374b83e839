#!/usr/bin/env node
// CI relevance gate: `npm run eval:gate` builds, then runs this. It evaluates every collection
// eval/targets.json names through a temporary server's HTTP data plane, with FTS5 BM25 beside, prints
// the table, one line per check and PASSED/FAILED (exit 1 on a miss), or SKIPPED when no collection
// is there. Usage: node eval/gate.js [targets.json]
// Datasets: <name> under SEARCHPLANE_EVAL_DATASETS, else ../shared/datasets/<name> beside the
// repository, else /work/shared/datasets/<name>. They are read in place, never copied here (some,
// like SciFact, are CC BY-NC).
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const { runGate } = await import('../dist/eval/eval-gate.js');

try {
  process.exitCode = await runGate({
    repoRoot,
    targetsFile: process.argv[2] ?? fileURLToPath(new URL('targets.json', import.meta.url)),
    env: process.env,
    out: (text) => process.stdout.write(text),
    progress: (line) => process.stderr.write(`eval gate: ${line}\n`),
  });
} catch (error) {
  process.stdout.write(`eval gate ERROR: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
