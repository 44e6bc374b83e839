import { afterEach, describe, expect, it, vi } from 'vitest';

const refuse = vi.hoisted(() => ({ code: undefined as string | undefined }));
vi.mock('node:fs', async (original) =>
  (await import('./refused-opens.test-fixtures.js')).refusingOpens(await original<typeof import('node:fs')>(), refuse),
);

const { sqliteOutOfDescriptors } = await import('./descriptor-probe.js');
const cantOpen = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });

describe('sqliteOutOfDescriptors', () => {
  afterEach(() => {
    refuse.code = undefined;
  });

  it.each(['EMFILE', 'ENFILE'])('is true when SQLite could not open and no descriptor is given (%s)', (code) => {
    refuse.code = code;
    expect(sqliteOutOfDescriptors(cantOpen)).toBe(true);
  });

  it('is false when a descriptor is given: the cause was elsewhere (a permission, a missing folder)', () => {
    expect(sqliteOutOfDescriptors(cantOpen)).toBe(false);
  });

  it('is false when the probe fails for another reason, and for other SQLite errors', () => {
    refuse.code = 'EACCES';
    expect(sqliteOutOfDescriptors(cantOpen)).toBe(false);
    refuse.code = 'EMFILE';
    expect(sqliteOutOfDescriptors(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }))).toBe(false);
    expect(sqliteOutOfDescriptors(undefined)).toBe(false);
  });
});
