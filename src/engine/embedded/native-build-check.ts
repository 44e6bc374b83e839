import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface NativeBuild {
  march: string;
  requires: string[];
}

/**
 * Refuses to go on when the native vector graph was compiled (by scripts/build-native.mjs during `npm ci`)
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
      `the native vector graph was built for ${build.march} and this CPU lacks ${missing.join(', ')}: run \`npm ci\` on this ` +
        'machine (it builds for the CPU it runs on), or `SEARCHPLANE_NATIVE_ARCH=x86-64 npm ci` where you build for several',
    );
  }
  return build.march;
}

/** Where scripts/build-native.mjs records the level it built the vector graph for (same from src/ and dist/). */
export function nativeBuildMarker(): string {
  return fileURLToPath(new URL('../../../native/vector-graph/build/Release/searchplane-build.json', import.meta.url));
}

function readCpuFlags(): Set<string> {
  const line = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1] ?? '';
  return new Set(line.trim().split(/\s+/));
}
