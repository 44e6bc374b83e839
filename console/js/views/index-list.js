import { field, h, notice, replaceChildren } from '../dom.js';
import { formatCount } from '../format.js';
import { toast } from '../toast.js';
import { onFormSubmit } from './field-errors.js';

/** `#/indexes`: the account's indexes with today's usage, and the create form. */
export async function renderIndexList({ main, api, settings, signal }) {
  const listArea = h('div', { class: 'list-area' }, h('p', { class: 'loading' }, 'Loading indexes…'));
  const created = h('div', { class: 'form-status' });
  const reload = async () => replaceChildren(listArea, indexTable(await loadIndexes(api, signal)));

  replaceChildren(
    main,
    h('div', { class: 'page-head' }, h('h1', { tabindex: '-1' }, 'Search indexes')),
    h('section', { 'aria-label': 'Your indexes' }, listArea),
    createForm({ api, settings, status: created, onCreated: reload }),
  );
  await reload();
}

/** Each index with its stats; an index whose stats fail still shows, with "—". */
async function loadIndexes(api, signal) {
  const indexes = await api.get('/search', signal);
  const stats = await Promise.all(
    indexes.map((index) => api.get(`/search/${index.id}/stats`, signal).catch(() => null)),
  );
  return indexes.map((index, i) => ({ index, stats: stats[i] }));
}

function indexTable(rows) {
  if (rows.length === 0) return h('p', { class: 'empty' }, 'No indexes yet. Create your first one below.');
  const headers = ['Name', 'Region', 'Plan', 'Documents', 'Requests today'];
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'data-table index-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((text) => h('th', { scope: 'col' }, text)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map(({ index, stats }) =>
          h(
            'tr',
            { 'data-index-id': index.id },
            h('td', { 'data-label': 'Name' }, h('a', { href: `#/indexes/${index.id}`, class: 'strong' }, index.name)),
            h('td', { 'data-label': 'Region' }, index.region),
            h('td', { 'data-label': 'Plan' }, h('span', { class: `badge plan-${index.type}` }, index.type)),
            h('td', { 'data-label': 'Documents', class: 'num' }, stats ? formatCount(stats.current_vector_count) : '—'),
            h(
              'td',
              { 'data-label': 'Requests today', class: 'num' },
              stats ? formatCount(stats.daily_query_count + stats.daily_update_count) : '—',
            ),
          ),
        ),
      ),
    ),
  );
}

function createForm({ api, settings, status, onCreated }) {
  const name = field(
    'Name',
    h('input', { type: 'text', name: 'name', autocomplete: 'off', spellcheck: 'false' }),
    'Up to 64 letters, digits, "-", "_" or ".".',
  );
  const region = field(
    'Region',
    h(
      'select',
      { name: 'region' },
      settings.regions.map((value) => h('option', { value }, value)),
    ),
  );
  const type = field(
    'Plan',
    h(
      'select',
      { name: 'type' },
      settings.plans.map((plan) =>
        h('option', { value: plan.name }, plan.available ? plan.name : `${plan.name} (not available)`),
      ),
    ),
  );
  const fields = {
    name: { label: 'Name', ...name },
    region: { label: 'Region', ...region },
    type: { label: 'Plan', ...type },
  };
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create index');
  const form = h(
    'form',
    { class: 'card create-index', novalidate: true, 'aria-labelledby': 'create-heading' },
    h('h2', { id: 'create-heading' }, 'Create an index'),
    h('div', { class: 'field-row' }, name.wrapper, region.wrapper, type.wrapper),
    status,
    h('div', { class: 'actions' }, submit),
  );
  onFormSubmit(form, { fields, status, submit }, async () => {
    const body = { name: name.control.value.trim(), region: region.control.value, type: type.control.value };
    const record = await api.post('/search', body);
    name.control.value = '';
    replaceChildren(
      status,
      notice('success', 'Created ', h('a', { href: `#/indexes/${record.id}` }, record.name), '.'),
    );
    toast(`Index ${record.name} created`);
    await onCreated();
  });
  return form;
}
