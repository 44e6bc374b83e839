import { h, isAbort, replaceChildren } from '../dom.js';
import { formatBytes, formatCount, formatSeriesTime, parseSeriesTime } from '../format.js';
import { lineChart } from './chart.js';

const PERIOD_LABELS = {
  '1h': 'Last hour',
  '3h': 'Last 3 hours',
  '12h': 'Last 12 hours',
  '1d': 'Last day',
  '3d': 'Last 3 days',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

/** Requests (queries and updates) and bandwidth over a chosen period, from `/stats?period=`. */
export function throughputSection({ api, record, settings, signal, initialStats, initialPeriod = '1h' }) {
  const select = h(
    'select',
    { id: 'throughput-period' },
    settings.statsPeriods.map((period) =>
      h('option', { value: period, selected: period === initialPeriod }, PERIOD_LABELS[period] ?? period),
    ),
  );
  const charts = h('div', { class: 'charts' });
  const status = h('div', { class: 'form-status' });
  const draw = (stats) => {
    const requests = seriesSpan(stats.query_throughput);
    replaceChildren(
      charts,
      lineChart({
        title: `Requests (${PERIOD_LABELS[select.value] ?? select.value})`,
        series: [
          { name: 'Queries', className: 'queries', points: stats.query_throughput },
          { name: 'Updates', className: 'updates', points: stats.update_throughput },
        ],
        formatX: (x) => formatSeriesTime(x, requests),
        formatY: (y) => formatCount(y),
      }),
      lineChart({
        title: `Bandwidth (${PERIOD_LABELS[select.value] ?? select.value})`,
        series: [{ name: 'Bandwidth', className: 'bandwidth', points: stats.bandwidth_throughput }],
        formatX: (x) => formatSeriesTime(x, requests),
        formatY: (y) => formatBytes(y),
      }),
    );
  };
  select.addEventListener('change', async () => {
    replaceChildren(status);
    charts.setAttribute('aria-busy', 'true');
    try {
      draw(await api.get(`/search/${record.id}/stats?period=${encodeURIComponent(select.value)}`, signal));
    } catch (error) {
      if (isAbort(error)) return;
      replaceChildren(status, h('div', { class: 'notice notice-error', role: 'alert' }, error.message));
    } finally {
      charts.removeAttribute('aria-busy');
    }
  });
  draw(initialStats);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'throughput-heading' },
    h(
      'div',
      { class: 'section-head' },
      h('h2', { id: 'throughput-heading' }, 'Throughput'),
      h('div', { class: 'inline-field' }, h('label', { for: 'throughput-period' }, 'Period'), select),
    ),
    status,
    charts,
  );
}

function seriesSpan(points) {
  const first = parseSeriesTime(points[0]?.x ?? '');
  const last = parseSeriesTime(points[points.length - 1]?.x ?? '');
  return first && last ? last - first : 0;
}
