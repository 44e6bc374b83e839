import { busy, h, replaceChildren } from '../dom.js';
import { formatValue } from '../format.js';

const PAGE = 50;

/** `#/activity`: the account's audit log, newest first, a page at a time. */
export async function renderActivity({ main, api, signal }) {
  const body = h('tbody', {});
  const more = h('button', { type: 'button', class: 'secondary' }, 'Show older');
  const footer = h('div', { class: 'actions' });
  let cursor = null;

  const load = async () => {
    const query = cursor === null ? `?limit=${PAGE}` : `?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`;
    const page = await api.get(`/auditlogs${query}`, signal);
    body.append(...page.data.map(entryRow));
    cursor = page.next_cursor;
    replaceChildren(footer, cursor === null ? [] : more);
    return page.data.length;
  };
  more.addEventListener('click', () => busy(more, load));

  const table = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'data-table activity-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Time', 'Action', 'Target', 'Key', 'Address', 'Details'].map((text) => h('th', { scope: 'col' }, text)),
        ),
      ),
      body,
    ),
  );
  replaceChildren(
    main,
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabindex: '-1' }, 'Activity'),
      h('p', { class: 'lead' }, 'Every change made through the management API, newest first.'),
    ),
    table,
    footer,
  );
  if ((await load()) === 0) replaceChildren(table, h('p', { class: 'empty' }, 'No changes recorded yet.'));
}

function entryRow(entry) {
  const time = new Date(entry.time).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return h(
    'tr',
    { 'data-entry-id': entry.id },
    h('td', { 'data-label': 'Time' }, time),
    h('td', { 'data-label': 'Action', class: 'strong' }, entry.action),
    h('td', { 'data-label': 'Target' }, entry.target ?? '—'),
    h('td', { 'data-label': 'Key' }, entry.key_name),
    h('td', { 'data-label': 'Address' }, entry.client_address),
    h('td', { 'data-label': 'Details' }, entry.details === null ? '—' : formatValue(entry.details)),
  );
}
