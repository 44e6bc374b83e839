// Builds the native vector graph (native/vector-graph: hnswlib over 8-bit vector codes) during
// `npm ci`, for the vector instructions of the machine that runs it, the way `-march=native`
// would: the distance functions only use AVX2/AVX-512 when compiled for them. Measured with the
// builtin embedder's 512-dim vectors on a 2-core AVX-512 machine: a 50k graph builds at 4,080
// vectors/s (float vectors through hnswlib-node: 1,431/s) and an ef 384 search takes 0.86 ms
// (2.15 ms) at the same recall@10. The chosen level is written beside the addon, and the engine
// refuses to start on a CPU without it (a node_modules and build copied to an older machine) with
// a message that says how to rebuild, instead of dying on an illegal instruction.
//
// SEARCHPLANE_NATIVE_ARCH: auto (default: the best level this CPU has), x86-64-v4 (AVX-512),
// x86-64-v3 (AVX2 + FMA), or x86-64 (portable, e.g. for an image built on one machine and run on
// others).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** CPU flags (as /proc/cpuinfo names them) each level needs; see the x86-64 psABI levels. */
const LEVELS = {
  'x86-64-v4': ['avx512f', 'avx512bw', 'avx512cd', 'avx512dq', 'avx512vl'],
  'x86-64-v3': ['avx', 'avx2', 'bmi1', 'bmi2', 'f16c', 'fma', 'abm', 'movbe', 'xsave'],
};
LEVELS['x86-64-v4'].push(...LEVELS['x86-64-v3']);

const log = (text) => process.stdout.write(`searchplane: ${text}\n`);
const requested = process.env.SEARCHPLANE_NATIVE_ARCH ?? 'auto';
const addonDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'native', 'vector-graph');
const marker = path.join(addonDir, 'build', 'Release', 'searchplane-build.json');

const level = chooseLevel();
log(`building the native vector graph for ${level ?? 'portable x86-64'}`);
copyHnswlibHeaders();
rebuild(level ? `-march=${level}` : '');
if (level) writeFileSync(marker, `${JSON.stringify({ march: level, requires: LEVELS[level] })}\n`);
else rmSync(marker, { force: true });

function rebuild(flags) {
  // npm names its own node-gyp to lifecycle scripts; the one beside npm otherwise.
  const nodeGyp =
    process.env.npm_config_node_gyp ??
    path.join(path.dirname(process.env.npm_execpath ?? ''), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (!existsSync(nodeGyp)) throw new Error(`node-gyp not found at ${nodeGyp}; run this through npm (npm ci)`);
  try {
    // The compiler's and gyp's chatter only matters when the build fails.
    execFileSync(process.execPath, [nodeGyp, 'rebuild'], {
      cwd: addonDir,
      stdio: 'pipe',
      env: { ...process.env, CXXFLAGS: `${process.env.CXXFLAGS ?? ''} ${flags}`.trim() },
    });
  } catch (error) {
    process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
    throw error;
  }
}

function chooseLevel() {
  if (requested === 'x86-64') return undefined;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    if (requested !== 'auto') log(`SEARCHPLANE_NATIVE_ARCH=${requested} ignored: only x86-64 Linux builds are tuned`);
    return undefined;
  }
  const flags = new Set(
    readFileSync('/proc/cpuinfo', 'utf8')
      .match(/^flags\s*:(.*)$/m)?.[1]
      .trim()
      .split(/\s+/),
  );
  if (requested !== 'auto') {
    if (!(requested in LEVELS))
      throw new Error(`SEARCHPLANE_NATIVE_ARCH must be auto, x86-64, x86-64-v3 or x86-64-v4, not ${requested}`);
    return requested;
  }
  return Object.keys(LEVELS).find((name) => LEVELS[name].every((flag) => flags.has(flag)));
}

/**
 * hnswlib's headers (from hnswlib-node), copied to `native/vector-graph/hnswlib-headers` (which
 * binding.gyp includes) with one change: 16 label locks per graph instead of 65,536. Each is a
 * std::mutex (40 bytes), so every graph held 2.6 MB of locks whatever its size, and an index
 * holds a graph per namespace and worker thread: 5.5 MB per namespace of one document, 16 GB for
 * 3,000 such namespaces. The locks serialise concurrent updates of one label, and a graph is only
 * ever used by the one worker thread that owns it, so 16 (a power of two, as the lock index is a
 * mask) lose nothing.
 */
function copyHnswlibHeaders() {
  const require = createRequire(import.meta.url);
  const source = path.join(path.dirname(require.resolve('hnswlib-node/package.json')), 'src', 'hnswlib');
  const target = path.join(addonDir, 'hnswlib-headers', 'hnswlib');
  rmSync(path.dirname(target), { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const name of readdirSync(source)) {
    let text = readFileSync(path.join(source, name), 'utf8');
    if (name === 'hnswalg.h') {
      const declaration = 'static const tableint MAX_LABEL_OPERATION_LOCKS = 65536;';
      if (text.split(declaration).length !== 2) {
        throw new Error(`${source}/hnswalg.h no longer declares "${declaration}" once: check the hnswlib-node update`);
      }
      text = text.replace(declaration, 'static const tableint MAX_LABEL_OPERATION_LOCKS = 16;');
    }
    writeFileSync(path.join(target, name), text);
  }
}
