import { expect, test } from 'vitest';
import type { SearchEngine } from '../../engine/contract.js';
import { EngineIndexData } from './index-data-lifecycle.js';

const fileError = (code: string) => Object.assign(new Error(`${code}: racing`), { code });

/** An engine whose drop and describe fail with the given errors first. */
function engineFailing(dropErrors: Error[], describeError?: Error) {
  let drops = 0;
  const engine = {
    async drop() {
      drops++;
      const error = dropErrors.shift();
      if (error) throw error;
    },
    async describe() {
      if (describeError) throw describeError;
      return { vectorCount: 3, pendingVectorCount: 1, indexSize: 100 };
    },
  } as unknown as SearchEngine;
  return { engine, drops: () => drops };
}

test('a drop that races a reader of the same files is retried', async () => {
  const { engine, drops } = engineFailing([fileError('ENOTEMPTY'), fileError('EBUSY')]);
  await new EngineIndexData(engine).dropIndexData('id');
  expect(drops()).toBe(3);
});

test('other drop failures, and a race that does not end, are reported', async () => {
  await expect(
    new EngineIndexData(engineFailing([new Error('disk on fire')]).engine).dropIndexData('id'),
  ).rejects.toThrow('disk on fire');
  const endless = engineFailing(Array.from({ length: 10 }, () => fileError('ENOTEMPTY')));
  await expect(new EngineIndexData(endless.engine, 3).dropIndexData('id')).rejects.toThrow('ENOTEMPTY');
  expect(endless.drops()).toBe(3);
});

test('describing an index whose files vanish meanwhile reports no data; other failures propagate', async () => {
  const data = new EngineIndexData(engineFailing([]).engine);
  expect(await data.describeIndexData('id')).toEqual({ vectorCount: 3, pendingVectorCount: 1, storageBytes: 100 });
  const vanished = new EngineIndexData(engineFailing([], fileError('ENOENT')).engine);
  expect(await vanished.describeIndexData('id')).toEqual({ vectorCount: 0, pendingVectorCount: 0, storageBytes: 0 });
  const broken = new EngineIndexData(engineFailing([], new Error('corrupt')).engine);
  await expect(broken.describeIndexData('id')).rejects.toThrow('corrupt');
});
