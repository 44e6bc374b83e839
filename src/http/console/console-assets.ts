import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One file of the console, held in memory with what is needed to serve it. */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
  /** Strong validator: a hash of the content, so a changed file is never served stale. */
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json; charset=utf-8',
};

/**
 * Loads every servable file under `dir` once, keyed by its URL path relative to the console root
 * (`js/app.js`). Serving from this map (rather than joining request paths onto the folder) means
 * no request can name a file outside it; files of other types are left out.
 */
export function loadConsoleAssets(dir: string): Map<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      const contentType = CONTENT_TYPES[path.extname(entry.name).toLowerCase()];
      if (!entry.isFile() || !contentType) continue;
      const body = readFileSync(path.join(dir, child));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      assets.set(child, { body, contentType, etag });
    }
  };
  walk('');
  return assets;
}
