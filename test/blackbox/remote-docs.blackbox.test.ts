import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { callIndex, setQuotas } from '../helpers/data-plane.js';
import { createIndex } from '../helpers/factories.js';
import { jsonLines, useRemoteTarget } from './support/remote-cli.js';
import { parseJson } from './support/searchplane-process.js';

const remote = useRemoteTarget();

/** A new index of the test account, created through the API. */
const newIndex = (name: string) => createIndex(remote.ctx.app, remote.account, { name });

/** All documents of a namespace, through the data plane (the CLI's view is not trusted here). */
async function stored(index: { endpoint: string; token: string }, namespace = '') {
  const route = namespace ? `range/${namespace}` : 'range';
  const body = { cursor: '', limit: 1000, includeData: true, includeMetadata: true };
  const response = await callIndex(remote.ctx.app, index.endpoint, route, index.token, body);
  return (JSON.parse(response.body).result.vectors as any[]).sort((a, b) => a.id.localeCompare(b.id));
}

/** Upsert requests the index has served (each accepted batch meters one update). */
async function updateRequests(index: { id: string }): Promise<number> {
  const stats = await remote.ctx.app.inject({
    method: 'GET',
    url: `/v2/search/${index.id}/stats`,
    headers: { authorization: remote.account.auth },
  });
  return JSON.parse(stats.body).daily_update_count;
}

const movies = [
  { id: 'm1', content: { title: 'Star Wars', genre: 'sci-fi' }, metadata: { year: 1977 } },
  { id: 'm2', content: { title: 'Amélie', genre: 'romance' }, metadata: { year: 2001 } },
  { id: 'm3', content: { title: 'Alien', genre: 'sci-fi horror' } },
];

describe('docs import', () => {
  test('JSONL, a JSON array and CSV (columns as content or metadata) all land as documents', async () => {
    const index = await newIndex('formats');
    const jsonl = remote.file('movies.jsonl', `${movies.map((movie) => JSON.stringify(movie)).join('\n')}\n`);
    const json = remote.file('movies.json', JSON.stringify(movies, null, 2));
    const csv = remote.file(
      'movies.csv',
      'sku,title,summary,year,rating\r\nc1,"Heat, the film","A ""classic""\nheist",1995,8.3\r\nc2,Up,,2009,\r\n',
    );

    const fromJsonl = await remote.run(['docs', 'import', 'formats', jsonl]);
    expect(fromJsonl.code).toBe(0);
    expect(fromJsonl.stdout).toMatch(/^imported 3 documents into formats in \d+\.\d s/);
    expect(await stored(index)).toEqual(movies);

    expect((await remote.run(['docs', 'import', 'formats', json, '--namespace', 'array'])).code).toBe(0);
    expect(await stored(index, 'array')).toEqual(movies);

    const fromCsv = await remote.run([
      'docs',
      'import',
      'formats',
      csv,
      '--namespace',
      'csv',
      '--id-column',
      'sku',
      '--content-columns',
      'title,summary',
    ]);
    expect(fromCsv.code).toBe(0);
    expect(await stored(index, 'csv')).toEqual([
      {
        id: 'c1',
        content: { title: 'Heat, the film', summary: 'A "classic"\nheist' },
        metadata: { year: 1995, rating: 8.3 },
      },
      { id: 'c2', content: { title: 'Up', summary: '' }, metadata: { year: 2009 } },
    ]);
  });

  test('stdin (`-`): the format from the first character, or --format csv', async () => {
    const index = await newIndex('piped');
    const jsonl = `${movies.map((movie) => JSON.stringify(movie)).join('\n')}\n`;
    expect((await remote.run(['docs', 'import', 'piped', '-'], {}, jsonl)).code).toBe(0);
    expect(await stored(index)).toEqual(movies);

    const csv = 'id,title\nx1,From a pipe\n';
    const unknown = await remote.run(['docs', 'import', 'piped', '-', '--namespace', 'csv'], {}, csv);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/cannot tell the format of stdin/);
    const piped = await remote.run(['docs', 'import', 'piped', '-', '--namespace', 'csv', '--format', 'csv'], {}, csv);
    expect(piped.code).toBe(0);
    expect(await stored(index, 'csv')).toEqual([{ id: 'x1', content: { title: 'From a pipe' } }]);
  });

  test('batches hold at most max_writes_per_request documents; --json gives the summary', async () => {
    const index = await newIndex('batches');
    await setQuotas(remote.ctx.store, index.id, { max_writes_per_request: 3 });
    const docs = Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, content: { text: `document ${i}` } }));
    const file = remote.file('ten.jsonl', docs.map((doc) => JSON.stringify(doc)).join('\n'));

    const result = await remote.run(['docs', 'import', index.id, file, '--json']);
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout)).toMatchObject({ imported: 10, failed: [] });
    expect(await updateRequests(index)).toBe(4); // 3 + 3 + 3 + 1
    expect((await stored(index)).map((doc) => doc.id)).toEqual(docs.map((doc) => doc.id).sort());
    expect(result.stderr).toMatch(/^searchplane: imported \d+ docs/m); // plain progress: stderr is no terminal
  });

  test('429 from max_writes_per_second is waited out (Retry-After) and everything is imported', async () => {
    const index = await newIndex('throttled');
    await setQuotas(remote.ctx.store, index.id, { max_writes_per_request: 2, max_writes_per_second: 1 });
    const docs = Array.from({ length: 6 }, (_, i) => ({ id: `t${i}`, content: { text: `throttled ${i}` } }));
    const file = remote.file('throttled.jsonl', docs.map((doc) => JSON.stringify(doc)).join('\n'));

    const result = await remote.run(['docs', 'import', 'throttled', file]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^searchplane: 429 rate_limited: .*; retrying in 0:01 \(attempt 2\)$/m);
    expect(await stored(index)).toHaveLength(6);
    expect(await updateRequests(index)).toBe(3);
  });

  test('a document the server refuses fails alone: its id is listed, the rest imported, exit 1', async () => {
    const index = await newIndex('partial');
    const docs = Array.from({ length: 8 }, (_, i) => ({
      id: `p${i}`,
      content: { text: i === 5 ? 'x'.repeat(5000) : `fine ${i}` },
    }));
    const file = remote.file('partial.jsonl', docs.map((doc) => JSON.stringify(doc)).join('\n'));

    const result = await remote.run(['docs', 'import', 'partial', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^imported 7 of 8 documents into partial/);
    expect(result.stderr).toMatch(
      /^searchplane: not imported: p5: 400 document_too_large: Document 'p5': content text/m,
    );
    expect((await stored(index)).map((doc) => doc.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p6', 'p7']);

    const json = await remote.run(['docs', 'import', 'partial', file, '--json']);
    expect(json.code).toBe(1);
    expect(parseJson(json.stdout)).toMatchObject({ imported: 7, failed: [{ ids: ['p5'], error: expect.any(String) }] });
  });

  test('a malformed line stops the import at that line, after importing the lines before it', async () => {
    const index = await newIndex('malformed');
    const file = remote.file(
      'bad.jsonl',
      '{"id":"ok1","content":{"a":1}}\n{"id":"ok2","content":{"a":2}}\n{"id":"bad",\n',
    );
    const result = await remote.run(['docs', 'import', 'malformed', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `searchplane: import stopped, the rest of ${file} was not read: ${file}:3: not valid JSON`,
    );
    expect((await stored(index)).map((doc) => doc.id)).toEqual(['ok1', 'ok2']);
  });

  test('format and option mistakes are usage errors (exit 2)', async () => {
    await newIndex('usage');
    const unknown = remote.file('data.txt', 'id,text\n1,a\n');
    const noFormat = await remote.run(['docs', 'import', 'usage', unknown]);
    expect(noFormat.code).toBe(2);
    expect(noFormat.stderr).toMatch(/cannot tell the format .*--format/);
    const csvFlagsOnJson = await remote.run([
      'docs',
      'import',
      'usage',
      remote.file('x.jsonl', ''),
      '--id-column',
      'id',
    ]);
    expect(csvFlagsOnJson.code).toBe(2);
    const missing = await remote.run(['docs', 'import', 'usage', path.join(remote.workDir, 'nope.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no such file/);
    expect((await remote.run(['docs', 'import', 'usage', unknown, '--format', 'xml'])).code).toBe(2);
  });
});

describe('docs export, get, delete', () => {
  test('import → export gives back the same documents (JSONL round trip), with a namespace', async () => {
    await newIndex('roundtrip');
    const docs = Array.from({ length: 25 }, (_, i) => ({
      id: `r${String(i).padStart(2, '0')}`,
      content: { title: `Title ${i}`, nested: { n: i } },
      ...(i % 2 === 0 ? { metadata: { even: true, i } } : {}),
    }));
    const source = remote.file('source.jsonl', docs.map((doc) => JSON.stringify(doc)).join('\n'));
    expect((await remote.run(['docs', 'import', 'roundtrip', source, '--namespace', 'books'])).code).toBe(0);

    const target = path.join(remote.workDir, 'exported.jsonl');
    const exported = await remote.run(['docs', 'export', 'roundtrip', target, '--namespace', 'books']);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(`exported 25 documents from roundtrip to ${target}\n`);
    expect(jsonLines(readFileSync(target, 'utf8'))).toEqual(docs);

    const toStdout = await remote.run(['docs', 'export', 'roundtrip', '-', '--namespace', 'books', '--no-progress']);
    expect(jsonLines(toStdout.stdout)).toEqual(docs);
    expect(toStdout.stderr).toBe('');
  });

  test('export pages by max_reads_per_request and reports progress', async () => {
    const index = await newIndex('paged');
    await setQuotas(remote.ctx.store, index.id, { max_reads_per_request: 4 });
    const docs = Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, content: { text: `t${i}` } }));
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data', index.token, docs);
    const target = path.join(remote.workDir, 'paged.jsonl');
    const result = await remote.run(['docs', 'export', 'paged', target]);
    expect(result.code).toBe(0);
    expect(jsonLines(readFileSync(target, 'utf8')).map((doc) => doc.id)).toEqual(docs.map((doc) => doc.id));
    expect(result.stderr).toMatch(/^searchplane: exported \d+ docs/m);
  });

  test('get prints found documents as JSON lines and fails listing the missing ids; delete counts', async () => {
    const index = await newIndex('byid');
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data/ns', index.token, movies);

    const found = await remote.run(['docs', 'get', 'byid', 'm1', 'm3', '--namespace', 'ns']);
    expect(found.code).toBe(0);
    expect(jsonLines(found.stdout)).toEqual([movies[0], movies[2]]);

    const partly = await remote.run(['docs', 'get', 'byid', 'm2', 'zz', '--namespace', 'ns']);
    expect(partly.code).toBe(1);
    expect(jsonLines(partly.stdout)).toEqual([movies[1]]);
    expect(partly.stderr).toBe('searchplane: not found: zz\n');

    const deleted = await remote.run(['docs', 'delete', 'byid', 'm1', 'm2', 'zz', '--namespace', 'ns']);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe('deleted 2 of 3 documents from byid (1 not found)\n');
    expect((await stored(index, 'ns')).map((doc) => doc.id)).toEqual(['m3']);
  });
});

describe('search', () => {
  test('a table by default, raw hits with --json; filter, top-k, semantic weight, rerank, namespace', async () => {
    const index = await newIndex('films');
    await callIndex(remote.ctx.app, index.endpoint, 'upsert-data/catalog', index.token, movies);

    const table = await remote.run(['search', 'films', 'star wars', '--namespace', 'catalog']);
    expect(table.code).toBe(0);
    const [header, first] = table.stdout.split('\n');
    expect(header.split(/\s+/)).toEqual(['#', 'ID', 'SCORE', 'CONTENT']);
    expect(first).toMatch(/^1\s+m1\s+0\.\d{4}\s+title: Star Wars · genre: sci-fi$/);

    const json = await remote.run([
      'search',
      'films',
      'sci-fi',
      '--namespace',
      'catalog',
      '--filter',
      "genre GLOB 'sci-fi*' AND @metadata.year < 2000",
      '--top-k',
      '5',
      '--semantic-weight',
      '0',
      '--rerank',
      '--json',
    ]);
    expect(json.code).toBe(0);
    const hits = parseJson(json.stdout); // full text finds m1 and m3; the filter keeps m1
    expect(hits.map((hit: any) => hit.id)).toEqual(['m1']);
    expect(hits[0]).toMatchObject({ content: movies[0].content, metadata: { year: 1977 }, score: expect.any(Number) });

    const unfiltered = await remote.run([
      'search',
      'films',
      'sci-fi',
      '--namespace',
      'catalog',
      '--semantic-weight',
      '0',
      '--json',
    ]);
    expect(
      parseJson(unfiltered.stdout)
        .map((hit: any) => hit.id)
        .sort(),
    ).toEqual(['m1', 'm3']);

    const one = parseJson(
      (await remote.run(['search', 'films', 'sci-fi', '--namespace', 'catalog', '--top-k', '1', '--json'])).stdout,
    );
    expect(one).toHaveLength(1);

    const empty = await remote.run(['search', 'films', 'anything']);
    expect(empty.stdout).toBe('no hits\n');
  });

  test('a filter syntax error is the server message on one line (exit 1); bad flags are usage errors (exit 2)', async () => {
    await newIndex('strict');
    const bad = await remote.run(['search', 'strict', 'x', '--filter', 'genre = ']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^searchplane: 400 invalid_filter: .*position \d+/);
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect((await remote.run(['search', 'strict', 'x', '--semantic-weight', '1.5'])).code).toBe(2);
    expect((await remote.run(['search', 'strict', 'x', '--top-k', 'many'])).code).toBe(2);
  });
});
