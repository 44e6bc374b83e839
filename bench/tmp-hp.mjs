import fs from 'node:fs';
import hnswlib from 'hnswlib-node';
import { createBuiltinEmbedder } from '../dist/engine/providers/builtin-embedder.js';
import { FullTextIndex } from '../dist/engine/embedded/full-text/full-text-index.js';
import { analyzeFields } from '../dist/engine/query/analyzer.js';
const lines = fs.readFileSync('/work/shared/datasets/scifact/corpus.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const sentences = lines.flatMap((d) => d.text.split(/(?<=\.)\s+/)).filter((s) => s.length > 20);
let seed = 7; const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
const N = Number(process.env.N ?? 20000), D = Number(process.env.D ?? 512);
const docs = Array.from({ length: N }, () => [lines[Math.floor(rnd() * lines.length)].title, [0, 1, 2].map(() => sentences[Math.floor(rnd() * sentences.length)]).join(' ')]);
const ft = new FullTextIndex(); docs.forEach((f, i) => ft.add(i + 1, analyzeFields(f)));
const emb = createBuiltinEmbedder(D);
const vecs = emb.embedTerms(docs.map((f) => analyzeFields(f).terms), ft).map((v) => { let s = 0; for (const x of v) s += x * x; s = Math.sqrt(s) || 1; return Array.from(v, (x) => x / s); });
const queries = fs.readFileSync('/work/shared/datasets/scifact/queries.jsonl', 'utf8').trim().split('\n').slice(0, 200).map((l) => JSON.parse(l).text);
const qv = (await emb.embed(queries, ft)).map((v) => { let s = 0; for (const x of v) s += x * x; s = Math.sqrt(s) || 1; return Array.from(v, (x) => x / s); });
const exact = qv.map((q) => vecs.map((v, i) => [i, v.reduce((a, x, j) => a + x * q[j], 0)]).sort((a, b) => b[1] - a[1]).slice(0, 10).map((x) => x[0]));
const S = Number(process.env.S ?? 1);
for (const [m, efc] of JSON.parse(process.env.P ?? '[[24,150],[16,100],[16,64],[12,48]]')) {
  if (S > 1) {
    const graphs = Array.from({ length: S }, () => { const g = new hnswlib.HierarchicalNSW('ip', D); g.initIndex({ maxElements: N, m, efConstruction: efc, randomSeed: 42 }); return g; });
    const t = performance.now(); for (let i = 0; i < N; i++) graphs[i % S].addPoint(vecs[i], i); const el = performance.now() - t;
    const out = [];
    for (const ef of [128, 256, 512]) { let hit = 0; const t2 = performance.now(); qv.forEach((q, qi) => { const all = []; for (const g of graphs) { g.setEf(ef); const r = g.searchKnn(q, 10); r.neighbors.forEach((n, j) => all.push([n, r.distances[j]])); } const top = all.sort((a, b) => a[1] - b[1]).slice(0, 10).map((x) => x[0]); hit += top.filter((x) => exact[qi].includes(x)).length; }); out.push(`ef${ef}: r=${(hit / (qv.length * 10)).toFixed(3)} ${((performance.now() - t2) / qv.length).toFixed(2)}ms(serial)`); }
    console.log(`S=${S} N=${N} D=${D} m=${m} efC=${efc}: ${(N / el * 1000).toFixed(0)} ins/s (one thread) | ${out.join(' | ')}`);
    continue;
  }
  const idx = new hnswlib.HierarchicalNSW('ip', D); idx.initIndex({ maxElements: N, m, efConstruction: efc, randomSeed: 42 });
  const t = performance.now(); for (let i = 0; i < N; i++) idx.addPoint(vecs[i], i); const el = performance.now() - t;
  const out = [];
  for (const ef of [128, 256, 512]) { idx.setEf(ef); let hit = 0; const t2 = performance.now(); qv.forEach((q, i) => { const r = idx.searchKnn(q, 10).neighbors; hit += r.filter((x) => exact[i].includes(x)).length; }); out.push(`ef${ef}: r=${(hit / (qv.length * 10)).toFixed(3)} ${((performance.now() - t2) / qv.length).toFixed(2)}ms`); }
  console.log(`N=${N} D=${D} m=${m} efC=${efc}: ${(N / el * 1000).toFixed(0)} ins/s | ${out.join(' | ')}`);
}
