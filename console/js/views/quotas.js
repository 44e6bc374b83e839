import { h } from '../dom.js';
import { formatBytes, formatCount } from '../format.js';

/** Quotas with their current usage: [label, used, limit, format]. */
function quotaRows(record, stats) {
  return [
    ['Documents', stats.current_vector_count, record.max_vector_count, formatCount],
    ['Queries today', stats.daily_query_count, record.max_daily_queries, formatCount],
    ['Updates today', stats.daily_update_count, record.max_daily_updates, formatCount],
    ['Bandwidth this month', stats.monthly_bandwidth_usage, record.max_monthly_bandwidth, formatBytes],
    ['Reranks this month', stats.monthly_rerank_count, record.max_monthly_reranks, formatCount],
  ];
}

/** Usage against each quota as a bar; -1 (unlimited) shows the usage and "unlimited", no bar. */
export function quotaSection(record, stats) {
  const limits = [
    ['Documents per upsert', record.max_writes_per_request],
    ['Reads per request', record.max_reads_per_request],
    ['Writes per second', record.max_writes_per_second],
    ['Queries per second', record.max_query_per_second],
  ];
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'quota-heading' },
    h('h2', { id: 'quota-heading' }, 'Usage and quotas'),
    h(
      'ul',
      { class: 'quota-list' },
      quotaRows(record, stats).map(([label, used, limit, format]) => quotaItem(label, used, limit, format)),
    ),
    h(
      'dl',
      { class: 'limits' },
      limits.map(([label, value]) =>
        h('div', {}, h('dt', {}, label), h('dd', {}, value < 0 ? 'unlimited' : formatCount(value))),
      ),
    ),
  );
}

function quotaItem(label, used, limit, format) {
  const labelId = `quota-${label.toLowerCase().replaceAll(' ', '-')}`;
  if (limit < 0) {
    return h(
      'li',
      { class: 'quota unlimited' },
      h('span', { class: 'quota-label', id: labelId }, label),
      h('span', { class: 'quota-value' }, `${format(used)} of unlimited`),
    );
  }
  const fraction = limit === 0 ? 1 : Math.min(1, used / limit);
  const fill = h('span', { class: `bar-fill${fraction >= 0.9 ? ' high' : fraction >= 0.7 ? ' mid' : ''}` });
  // Set through the CSSOM: the page's CSP allows no inline style attributes.
  fill.style.width = `${(fraction * 100).toFixed(1)}%`;
  return h(
    'li',
    { class: 'quota' },
    h('span', { class: 'quota-label', id: labelId }, label),
    h('span', { class: 'quota-value' }, `${format(used)} of ${format(limit)}`),
    h(
      'span',
      {
        class: 'bar',
        role: 'meter',
        'aria-labelledby': labelId,
        'aria-valuemin': '0',
        'aria-valuemax': String(limit),
        'aria-valuenow': String(Math.min(used, limit)),
        'aria-valuetext': `${format(used)} of ${format(limit)}`,
      },
      fill,
    ),
  );
}
