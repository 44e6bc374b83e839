import { h } from '../dom.js';

const TABS = [
  ['', 'Overview'],
  ['/search', 'Search'],
  ['/documents', 'Documents'],
];

/** The heading of every index page: name, facts, and the Overview / Search / Documents tabs. */
export function indexHeader(record, current) {
  return h(
    'div',
    { class: 'page-head' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/indexes' }, 'Indexes'), ' / '),
    h('h1', { tabindex: '-1' }, record.name),
    h(
      'p',
      { class: 'facts' },
      h('span', { class: `badge plan-${record.type}` }, record.type),
      h('span', {}, record.region),
      h('span', { class: 'mono' }, record.endpoint),
    ),
    h(
      'nav',
      { class: 'tabs', 'aria-label': `Index ${record.name}` },
      TABS.map(([suffix, label]) =>
        h('a', { href: `#/indexes/${record.id}${suffix}`, 'aria-current': suffix === current ? 'page' : null }, label),
      ),
    ),
  );
}
