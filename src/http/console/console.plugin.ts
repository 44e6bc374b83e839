import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../errors.js';
import { ACTIONS } from '../../services/key-actions.js';
import { PLAN_NAMES } from '../../services/plans.js';
import { REGIONS } from '../../services/search-index.service.js';
import { STATS_PERIODS } from '../../services/usage-stats.service.js';
import { type ConsoleAsset, loadConsoleAssets } from './console-assets.js';

export interface ConsolePluginOptions {
  config: Pick<Config, 'dataDomain' | 'plans' | 'bodyLimitBytes'>;
  /** Where the console's files are; defaults to the top-level `console/` folder of the package. */
  assetsDir?: string;
}

/**
 * The package's `console/` folder: three levels above this file both as `src/http/console/*.ts`
 * (Vitest) and as `dist/http/console/*.js` (Node).
 */
export const CONSOLE_ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../console');

/**
 * No inline script or style, nothing from another origin: the page holds an API key, so a
 * script injected through displayed data must have nowhere to run and nowhere to send it.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * The web console: `/` redirects to `/console`, which serves a single page of plain ES modules
 * that call the management API and the data plane of the same origin. Files are revalidated on
 * every load (`no-cache` + ETag) because their names carry no version.
 */
export async function consolePlugin(app: FastifyInstance, options: ConsolePluginOptions): Promise<void> {
  const assets = loadConsoleAssets(options.assetsDir ?? CONSOLE_ASSETS_DIR);
  const page = assets.get('index.html');
  if (!page) throw new Error(`The console's index.html is missing from ${options.assetsDir ?? CONSOLE_ASSETS_DIR}`);
  const settings = consoleSettings(options.config);

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });

  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console', 302));

  const serveAsset = (asset: ConsoleAsset, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-cache').header('etag', asset.etag).type(asset.contentType);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  };
  for (const url of ['/console', '/console/']) {
    app.get(url, { schema: { hide: true } }, (request, reply) => serveAsset(page, request, reply));
  }
  app.get('/console/settings.json', { schema: { hide: true } }, (_request, reply) =>
    reply.header('cache-control', 'no-store').send(settings),
  );
  app.get('/console/*', { schema: { hide: true } }, (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const asset = assets.get(name);
    if (!asset) throw new AppError('route_not_found', `No console file ${name}`);
    return serveAsset(asset, request, reply);
  });
}

/** What the page needs to know about this server and cannot ask the API for. */
export function consoleSettings(config: ConsolePluginOptions['config']) {
  return {
    dataDomain: config.dataDomain ?? null,
    regions: [...REGIONS],
    plans: PLAN_NAMES.map((name) => ({ name, available: config.plans[name].available })),
    statsPeriods: [...STATS_PERIODS],
    bodyLimitBytes: config.bodyLimitBytes,
    actions: [...ACTIONS],
  };
}
