import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBuiltinEmbedder } from '../providers/builtin-embedder.js';
import { rejection, tempDir, testEngine } from '../test-fixtures.js';
import { createEmbeddedEngine } from './embedded-engine.js';

// The process out of descriptors, as far as a probe can tell: Node's fs refuses every open.
const refuse = vi.hoisted(() => ({ code: undefined as string | undefined }));
vi.mock('node:fs', async (original) =>
  (await import('./refused-opens.test-fixtures.js')).refusingOpens(await original<typeof import('node:fs')>(), refuse),
);

describe('embedded engine: describing an index that is not open', () => {
  afterEach(() => {
    refuse.code = undefined;
  });

  it('counts nothing for an index without a database, but answers 503 when that is for want of descriptors', async () => {
    const temp = tempDir();
    const engine = testEngine(temp.dir);
    try {
      // Its folder made, its database not yet (SQLite's refusal is then the same as for want of a descriptor).
      mkdirSync(path.join(temp.dir, 'indexes', 'never-written'), { recursive: true });
      expect(await engine.describe('never-written')).toEqual({ vectorCount: 0, pendingVectorCount: 0, indexSize: 0 });
      refuse.code = 'EMFILE';
      const refused = await rejection(engine.describe('never-written'));
      expect(refused.code).toBe('service_unavailable');
      expect(refused.headers).toEqual({ 'retry-after': '1' });
    } finally {
      refuse.code = undefined;
      await engine.close();
      temp.remove();
    }
  });
});

describe('embedded engine: closed', () => {
  it('opens no index once its close began, and finishes the work it had', async () => {
    const temp = tempDir();
    const engine = createEmbeddedEngine({ dataDir: temp.dir, embedder: createBuiltinEmbedder(), vectorWorkers: 1 });
    try {
      const index = await engine.open('idx');
      let closing: Promise<void> | undefined;
      const inFlight = engine.use('idx', async () => {
        closing = engine.close();
        return 'finished';
      });
      expect(await inFlight).toBe('finished');
      expect((await rejection(index.info())).code).toBe('service_unavailable');
      expect((await rejection(engine.use('other', async () => 'opened'))).code).toBe('service_unavailable');
      await closing;
    } finally {
      await engine.close();
      temp.remove();
    }
  });
});
