import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { devNull } from 'node:os';

/** What `work` gave or threw. */
export type Outcome<T> = { value: T; error?: undefined } | { value?: undefined; error: unknown };

/** Whether {@link withoutDescriptors} works here: Linux (/proc/self/fd) with prlimit(1). */
export const descriptorsCanRunOut =
  process.platform === 'linux' && spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0;

/** Descriptors left free under the lowered limit before they are taken: what spawning prlimit needs. */
const SPARE = 32;

/**
 * Runs `work` while this process has no file descriptor left: the real thing, not a mock, so that
 * native code and worker threads (which share the descriptor table) see it too. The process's soft
 * limit is first lowered (with prlimit(1)) to just above its highest open descriptor, so that a few
 * opens exhaust it whatever the machine's limit, and the system's table is never touched; the
 * descriptors and the limit are given back before this returns, so the caller asserts afterwards,
 * when a failed expectation can read source files again.
 */
export async function withoutDescriptors<T>(work: () => Promise<T>): Promise<Outcome<T>> {
  const [soft, hard] = descriptorLimits();
  const highest = Math.max(...readdirSync('/proc/self/fd').map(Number));
  setSoftLimit(highest + 1 + SPARE, hard);
  const held: number[] = [];
  const giveBack = () => {
    for (const fd of held.splice(0)) closeSync(fd);
    setSoftLimit(soft, hard);
  };
  try {
    for (;;) held.push(openSync(devNull, 'r'));
  } catch (error) {
    if ((error as { code?: string }).code !== 'EMFILE') {
      giveBack();
      throw error;
    }
  }
  try {
    return { value: await work() };
  } catch (error) {
    return { error };
  } finally {
    giveBack();
  }
}

function descriptorLimits(): [string, string] {
  const match = /Max open files\s+(\S+)\s+(\S+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  if (!match) throw new Error('no open-file limit in /proc/self/limits');
  return [match[1], match[2]];
}

function setSoftLimit(soft: number | string, hard: string): void {
  execFileSync('prlimit', [`--pid=${process.pid}`, `--nofile=${soft}:${hard}`], { stdio: 'ignore' });
}
