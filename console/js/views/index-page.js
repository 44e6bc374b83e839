import { copyText } from '../clipboard.js';
import { h, replaceChildren } from '../dom.js';
import { formatDate } from '../format.js';
import { indexActionsSection } from './index-actions.js';
import { indexHeader } from './index-header.js';
import { quotaSection } from './quotas.js';
import { throughputSection } from './throughput.js';

/** `#/indexes/<id>`: how to connect, usage against quotas, throughput, and rename/reset/delete. */
export async function renderIndexPage(ctx) {
  const { main, api, settings, signal, params } = ctx;
  const [id] = params;
  const [record, stats] = await Promise.all([
    api.get(`/search/${encodeURIComponent(id)}`, signal),
    api.get(`/search/${encodeURIComponent(id)}/stats?period=1h`, signal),
  ]);
  replaceChildren(
    main,
    indexHeader(record, ''),
    connectSection(record, settings),
    quotaSection(record, stats),
    throughputSection({ api, record, settings, signal, initialStats: stats }),
    indexActionsSection({
      api,
      record,
      signal,
      onChanged: async () => {
        await renderIndexPage(ctx);
        main.querySelector('h1')?.focus();
      },
    }),
  );
}

/**
 * The URLs an SDK or curl uses, the same way the server builds them (src/services/index-urls.ts):
 * `<origin>/indexes/<endpoint>`, and `<scheme>://<endpoint>.<domain>[:port]` with a data domain.
 */
export function indexUrls(record, settings) {
  const urls = [];
  if (settings.dataDomain) {
    const port = location.port ? `:${location.port}` : '';
    urls.push(['REST URL', `${location.protocol}//${record.endpoint}.${settings.dataDomain}${port}`]);
    urls.push(['REST URL (path form)', `${location.origin}/indexes/${record.endpoint}`]);
  } else {
    urls.push(['REST URL', `${location.origin}/indexes/${record.endpoint}`]);
  }
  return urls;
}

function connectSection(record, settings) {
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'connect-heading' },
    h('h2', { id: 'connect-heading' }, 'Connect'),
    h(
      'dl',
      { class: 'secrets' },
      indexUrls(record, settings).map(([label, url]) => secretRow(label, url, { masked: false })),
      secretRow('Token (read-write)', record.token, { masked: true }),
      secretRow('Read-only token', record.read_only_token, { masked: true }),
    ),
    h(
      'p',
      { class: 'hint' },
      `Created ${formatDate(record.creation_time)}. `,
      'Send a token as ',
      h('code', {}, 'Authorization: Bearer <token>'),
      '.',
    ),
  );
}

/** A labelled value with a copy button; secrets start masked with a reveal toggle. */
function secretRow(label, value, { masked }) {
  const slug = label.toLowerCase().replace(/[^a-z]+/g, '-');
  const shown = h('code', { class: 'secret-value', id: `value-${slug}` });
  let revealed = !masked;
  const update = () => {
    shown.textContent = revealed ? value : '•'.repeat(24);
    shown.classList.toggle('masked', !revealed);
  };
  update();
  const buttons = [];
  if (masked) {
    const reveal = h('button', { type: 'button', class: 'secondary small', 'aria-pressed': 'false' }, 'Reveal');
    reveal.setAttribute('aria-label', `Reveal ${label.toLowerCase()}`);
    reveal.addEventListener('click', () => {
      revealed = !revealed;
      reveal.textContent = revealed ? 'Hide' : 'Reveal';
      reveal.setAttribute('aria-pressed', String(revealed));
      reveal.setAttribute('aria-label', `${revealed ? 'Hide' : 'Reveal'} ${label.toLowerCase()}`);
      update();
    });
    buttons.push(reveal);
  }
  const copy = h(
    'button',
    { type: 'button', class: 'secondary small', 'aria-label': `Copy ${label.toLowerCase()}` },
    'Copy',
  );
  copy.addEventListener('click', () => copyText(value, label));
  buttons.push(copy);
  return [h('dt', {}, label), h('dd', { class: 'secret-row' }, shown, h('span', { class: 'row-buttons' }, buttons))];
}
