/**
 * The entry of a text shard worker thread. Node runs only JavaScript in a worker, so where the
 * engine runs from TypeScript sources (under Vitest) the worker registers tsx first and loads the
 * .ts file; from the built package it loads the compiled .js beside this file.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('./text-shard.worker.ts', import.meta.url);
if (existsSync(fileURLToPath(source))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('./text-shard.worker.js');
}
