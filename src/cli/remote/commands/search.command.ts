import { Command } from 'commander';
import { printJson } from '../../cli-support.js';
import { resolveIndex } from '../index-resolver.js';
import { positiveInteger, semanticWeight } from '../option-parsers.js';
import { contentPreview, displayWidth, formatTable, printable, printText, truncate } from '../output.js';
import { addRemoteOptions, connect } from '../remote-context.js';

interface SearchFlags {
  topK?: number;
  filter?: string;
  semanticWeight?: number;
  rerank?: boolean;
  namespace: string;
  json?: boolean;
}

interface Hit {
  id: string;
  score: number;
  content?: unknown;
  metadata?: unknown;
}

/** `searchplane search <index> "<query>"`: hybrid search; a table of hits, or `--json`. */
export function searchCommand(): Command {
  return addRemoteOptions(new Command('search'))
    .description('search an index (hybrid full text + semantic); prints a table of hits')
    .argument('<index>', 'index id or name')
    .argument('<query>', 'what to search for')
    .option('--top-k <k>', 'how many hits (server default: 10, or max_reads_per_request if lower)', positiveInteger)
    .option('--filter <filter>', 'filter expression, e.g. "genre = \'sci-fi\' AND @metadata.year >= 1977"')
    .option('--semantic-weight <w>', '0 = full text only … 1 = semantic only (server default 0.75)', semanticWeight)
    .option('--rerank', 're-score the hits with the reranker (uses the rerank quota)')
    .option('--namespace <namespace>', 'namespace to search; default: the default namespace', '')
    .option('--json', 'print the hits as JSON: [{"id","score","content","metadata"}]')
    .action(async (ref: string, query: string, flags: SearchFlags, command: Command) => {
      const client = connect(command);
      const record = await resolveIndex(client, ref);
      const body = {
        query,
        // Left out unless given: the server then takes min(10, max_reads_per_request), where a
        // fixed 10 would be refused by an index that reads fewer per request.
        ...(flags.topK !== undefined ? { topK: flags.topK } : {}),
        includeData: true,
        includeMetadata: true,
        ...(flags.filter !== undefined ? { filter: flags.filter } : {}),
        ...(flags.semanticWeight !== undefined ? { semanticWeight: flags.semanticWeight } : {}),
        ...(flags.rerank ? { reranking: true } : {}),
      };
      const hits = await client.dataPlane<Hit[]>(client.dataPlaneOf(record), 'search', flags.namespace, body);
      if (flags.json) printJson(hits);
      else printText(hitTable(hits));
    });
}

/** `#  ID  SCORE  CONTENT`, the content cut to fit the terminal (100 columns when not one). */
export function hitTable(hits: Hit[], columns = process.stdout.columns ?? 100): string {
  if (hits.length === 0) return 'no hits';
  const ids = hits.map((hit) => printable(hit.id));
  const idWidth = Math.min(32, Math.max(2, ...ids.map(displayWidth)));
  const used = String(hits.length).length + idWidth + 6 + 3 * 2;
  const previewWidth = Math.max(20, columns - used - 1);
  const rows = hits.map((hit, position) => [
    String(position + 1),
    truncate(ids[position], idWidth),
    hit.score.toFixed(4),
    contentPreview(hit.content, previewWidth),
  ]);
  return formatTable(['#', 'ID', 'SCORE', 'CONTENT'], rows);
}
