#!/usr/bin/env node
// CI relevance gate (issue #9): `npm run eval:gate` builds, then runs this. It evaluates SciFact with
// the configurations eval/targets.json names, prints the table and one PASSED/FAILED/SKIPPED line,
// and exits 1 when a target is missed. Usage: node eval/gate.js [targets.json]
// Dataset: SEARCHPLANE_EVAL_DATASET, else ../shared/datasets/scifact beside the repository, else
// /work/shared/datasets/scifact. The collection is CC BY-NC: it is read in place, never copied here.
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
