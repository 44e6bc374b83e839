/**
 * glibc malloc settings that `npm start` runs the server with (package.json repeats them; a test
 * keeps the two equal). By default glibc raises its mmap threshold each time a large block is
 * freed, so the engine's growing typed arrays and per-batch vector buffers end up in the main heap,
 * where freed blocks stay resident as holes. A fixed threshold keeps every block of 128 KiB or more
 * in its own mapping, returned to the system when freed, and a 1 MiB trim threshold gives back the
 * top of the heap sooner, so RSS after a bulk load stays much lower (README, Operations: Memory).
 * glibc reads these only when the process starts, so they cannot be set from inside it; other C
 * libraries (musl, macOS) ignore them.
 */
export const MALLOC_TUNING: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '1048576',
};

/**
 * A start-up hint when the process runs on glibc without the settings (started other than by
 * `npm start`), else undefined. Settings the operator chose, whatever their values, are left alone.
 */
export function mallocTuningHint(env: NodeJS.ProcessEnv, glibc: boolean): string | undefined {
  if (!glibc) return undefined;
  const missing = Object.keys(MALLOC_TUNING).filter((name) => env[name] === undefined);
  if (missing.length === 0) return undefined;
  const settings = Object.entries(MALLOC_TUNING)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  return `glibc malloc runs with its defaults: start with ${settings} (as npm start does) for a smaller resident memory; see README, Operations`;
}

/** Whether this process runs on glibc (Node's report names its version only there). */
export function runsOnGlibc(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return typeof report?.header?.glibcVersionRuntime === 'string';
}
