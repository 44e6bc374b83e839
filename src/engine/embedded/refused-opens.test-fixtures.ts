import type * as fs from 'node:fs';

/** Set `code` (EMFILE, ENFILE...) to make every `openSync` fail with it; undefined to stop. */
export interface RefusedOpens {
  code: string | undefined;
}

/**
 * `node:fs` whose `openSync` fails while `refuse.code` is set: a process out of descriptors, as far
 * as a probe can tell. For `vi.mock('node:fs', ...)`, with `refuse` from `vi.hoisted`.
 */
export function refusingOpens(actual: typeof fs, refuse: RefusedOpens): typeof fs {
  return {
    ...actual,
    openSync: (...args: Parameters<typeof fs.openSync>) => {
      if (refuse.code) throw Object.assign(new Error(refuse.code), { code: refuse.code });
      return actual.openSync(...args);
    },
  };
}
