import path from 'node:path';
import { expect, test } from 'vitest';
import { transformersInstalled } from '../../src/engine/providers/onnx-embedder.js';
import { useStoreTarget } from './support/lifecycle.js';
import { runCli } from './support/searchplane-process.js';

const target = useStoreTarget();

const installed = transformersInstalled();

// Whichever way this machine is set up, a start that cannot embed fails before it listens, with
// one line on stderr: without the optional package it says what to install, with it (the CI step
// that installs it) it names the missing model directory.
test(`provider=onnx with a missing model fails at start with one line (${installed ? 'package installed' : 'package not installed'})`, async () => {
  const modelDir = path.join(target.dataDir, 'no-such-model');
  const result = await runCli(['serve', ...target.args, '--port', '0'], {
    SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx',
    SEARCHPLANE_EMBEDDINGS_MODEL: modelDir,
  });
  expect(result.code).toBe(1);
  expect(result.stdout).not.toContain('listening');
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  if (installed) expect(lines[0]).toContain(modelDir);
  else expect(lines[0]).toContain('npm run install:onnx');
});

test('provider=onnx without a model is a configuration error (exit 2)', async () => {
  const result = await runCli(['serve', ...target.args], { SEARCHPLANE_EMBEDDINGS_PROVIDER: 'onnx' });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('SEARCHPLANE_EMBEDDINGS_MODEL');
});
