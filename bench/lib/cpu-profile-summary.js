import { readFileSync } from 'node:fs';

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per
 * origin (our code, each npm package, node internals, native/GC), as percentages of samples.
 */
export function summarizeCpuProfile(file, top = 25) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfTicks = new Map();
  for (const id of profile.samples) selfTicks.set(id, (selfTicks.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const byFunction = new Map();
  const byOrigin = new Map();
  for (const [id, ticks] of selfTicks) {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const where = url ? `${shorten(url)}:${lineNumber + 1}` : '';
    const name = `${functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + ticks);
    const origin = originOf(url, functionName);
    byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + ticks);
  }
  const percent = (ticks) => `${((100 * ticks) / total).toFixed(1).padStart(5)}%`;
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
  console.log(`\nCPU profile ${file} (${total} samples), self time by origin:`);
  for (const [origin, ticks] of sorted(byOrigin).slice(0, 15)) console.log(`  ${percent(ticks)}  ${origin}`);
  console.log(`top ${top} functions by self time:`);
  for (const [name, ticks] of sorted(byFunction).slice(0, top)) console.log(`  ${percent(ticks)}  ${name}`);
}

function shorten(url) {
  return url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/dist\//, 'dist/');
}

function originOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm: ${pkg[1]}`;
  if (url.includes('/dist/')) return 'searchplane (dist/)';
  return url;
}
