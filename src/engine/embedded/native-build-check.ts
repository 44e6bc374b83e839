import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

interface NativeBuild {
  march: string;
  requires: string[];
}

/**
 * Refuses to go on when hnswlib-node was compiled (by scripts/build-hnswlib.mjs during `npm ci`)
 * for vector instructions this CPU lacks, e.g. a node_modules copied from a newer machine: the
 * graphs would die on an illegal instruction at their first use. Returns the level it was built
 * for, or undefined for the portable build.
 */
export function checkNativeBuild(
  marker = nativeBuildMarker(),
  cpuFlags: () => Set<string> = readCpuFlags,
): string | undefined {
  if (!existsSync(marker)) return undefined;
  const build = JSON.parse(readFileSync(marker, 'utf8')) as NativeBuild;
  const flags = cpuFlags();
  const missing = build.requires.filter((flag) => !flags.has(flag));
  if (missing.length > 0) {
    throw new Error(
      `hnswlib-node was built for ${build.march} and this CPU lacks ${missing.join(', ')}: run \`npm ci\` on this ` +
        'machine (it builds for the CPU it runs on), or `SEARCHPLANE_NATIVE_ARCH=x86-64 npm ci` where you build for several',
    );
  }
  return build.march;
}

/** Where scripts/build-hnswlib.mjs records the level it built hnswlib-node for. */
export function nativeBuildMarker(): string {
  const addonDir = path.dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json'));
  return path.join(addonDir, 'build', 'Release', 'searchplane-build.json');
}

function readCpuFlags(): Set<string> {
  const line = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  return new Set(line.trim().split(/\s+/));
}
