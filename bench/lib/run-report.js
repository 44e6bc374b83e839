// The benchmark's tables: one per corpus run (every system side by side), and the growth of the
// realistic corpus between two sizes.
import { mb, ms, printTable, qps, rate, ratio as times } from './report-table.js';

const divide = (a, b) => (a === undefined || b === undefined ? undefined : a / b);

/** Prints the systems of one corpus run (`{ kind, docs, textBytes, exact, fts5, peer, searchplane }`). */
export function printRunTable(run, settings, log) {
  const { searchplane: sp, fts5, peer, exact, textBytes } = run;
  const rows = [];
  const row = (name, system, mode, withIngest) => {
    const m = system.modes[mode];
    rows.push([
      name,
      withIngest ? rate(system.ingest.ackDocsPerSecond) : '',
      withIngest ? rate(system.ingest.indexedDocsPerSecond) : '',
      ms(m.p50),
      ms(m.p95),
      ms(m.concurrent?.p50),
      ms(m.concurrent?.p95),
      qps(m.qps),
      withIngest ? mb(system.rss) : '',
      withIngest ? times(system.rss / textBytes) : '',
      withIngest ? mb(system.disk) : '',
    ]);
  };
  if (sp) {
    row('searchplane HTTP, full text (w 0)', sp, 'fullText', true);
    row('searchplane HTTP, default request', sp, 'default', false);
    row('searchplane HTTP, vector (w 1)', sp, 'vector', false);
    if (sp.modes.filtered) row('searchplane HTTP, full text + filter', sp, 'filtered', false);
  }
  if (fts5) row('SQLite FTS5, porter + bm25()', fts5, 'fullText', true);
  if (peer) row('LanceDB full-text index', peer, 'fullText', true);
  const c = settings.clients;
  log(`\n${run.kind} corpus, ${run.docs} documents, ${mb(textBytes)} of text (1 client, then ${c} concurrent)`);
  if (rows.length > 0) {
    printTable(
      [
        'system',
        'ingest acked/s',
        'fully indexed/s',
        'p50 ms',
        'p95 ms',
        `p50 ${c}c`,
        `p95 ${c}c`,
        `QPS ${c}c`,
        'RSS',
        'RSS/text',
        'disk',
      ],
      rows,
      log,
    );
  }
  if (sp) {
    log('searchplane: client in this process, server in its own; full text = semanticWeight 0, no input enrichment;');
    log('default = what @upstash/search sends for search({query, limit: 10}) (0.75, enrichment on).');
    if (sp.resident) {
      log(
        `searchplane RSS after ingest and queries ${mb(sp.rss)} = ${mb(sp.resident.anon)} private + ` +
          `${mb(sp.resident.file)} mapped file pages; ${mb(sp.indexedRss)} right after indexing`,
      );
    }
    const rounds = (system, mode) => system?.modes[mode].rounds;
    if (rounds(sp, 'fullText')?.length > 1) {
      const line = (system, mode) =>
        rounds(system, mode)
          .map((round) => `${qps(round.qps)} QPS/${ms(round.p50)} ms`)
          .join(', ');
      log(`concurrent rounds, in the order run (the table shows each system's median):`);
      if (rounds(peer, 'fullText')) log(`  LanceDB full text:        ${line(peer, 'fullText')}`);
      log(`  searchplane full text:    ${line(sp, 'fullText')}`);
      log(`  searchplane default:      ${line(sp, 'default')}`);
    }
    log(`vector recall@10 vs exact cosine (builtin embedder): ${sp.recall.toFixed(3)}`);
    if (sp.exactness) {
      log(
        `full-text answers over HTTP ≠ exhaustive BM25: ${sp.exactness.mismatches} of ${sp.exactness.queries} queries`,
      );
    }
  }
  if (fts5 || peer) log('SQLite FTS5 and LanceDB run in their own processes, queried in process (no HTTP).');
  if (exact) {
    for (const [name, part] of [
      ['SciFact', exact.scifact],
      ['corpus', exact.corpus],
    ]) {
      log(
        `FullTextIndex.search vs searchExhaustive on ${name} (${part.documents} docs, ${part.queries} queries): ` +
          `${part.mismatches} mismatches; in process p50 ${ms(part.pruned.p50)} ms vs ${ms(part.exhaustive.p50)} ms`,
      );
    }
  }
}

/** `{ header, rows }`: measures of two runs of the realistic corpus and how much each grew. */
export function growthRows(small, large) {
  const measures = [
    ['searchplane full-text p50, concurrent (ms)', (run) => run.searchplane?.modes.fullText.concurrent?.p50, ms],
    ['LanceDB full-text p50, concurrent (ms)', (run) => run.peer?.modes.fullText.concurrent?.p50, ms],
    ['searchplane default p50, concurrent (ms)', (run) => run.searchplane?.modes.default.concurrent?.p50, ms],
    ['searchplane full-text p50, 1 client (ms)', (run) => run.searchplane?.modes.fullText.p50, ms],
    ['LanceDB full-text p50, 1 client (ms)', (run) => run.peer?.modes.fullText.p50, ms],
    ['searchplane full-text QPS', (run) => run.searchplane?.modes.fullText.qps, qps],
    ['LanceDB full-text QPS', (run) => run.peer?.modes.fullText.qps, qps],
    ['searchplane ingest acknowledged (docs/s)', (run) => run.searchplane?.ingest.ackDocsPerSecond, rate],
    ['searchplane fully indexed (docs/s)', (run) => run.searchplane?.ingest.indexedDocsPerSecond, rate],
    ['LanceDB fully indexed (docs/s)', (run) => run.peer?.ingest.indexedDocsPerSecond, rate],
    ['searchplane RSS', (run) => run.searchplane?.rss, mb],
    ['searchplane RSS / text', (run) => divide(run.searchplane?.rss, run.textBytes), times],
    ['LanceDB RSS', (run) => run.peer?.rss, mb],
    ['searchplane disk', (run) => run.searchplane?.disk, mb],
  ];
  return {
    header: ['measure', `${small.docs}`, `${large.docs}`, 'growth'],
    rows: measures.map(([name, value, format]) => [
      name,
      format(value(small)),
      format(value(large)),
      times(divide(value(large), value(small))),
    ]),
  };
}
