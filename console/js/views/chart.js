import { h, svg, uid } from '../dom.js';

const PAD = { top: 12, right: 14, bottom: 28, left: 56 };

/**
 * An SVG line chart of one or more series sharing x positions. Hovering, or focusing the chart
 * and using the arrow keys (Home/End for the ends), selects a point and shows every series' value
 * there. `series`: [{ name, className, points: [{ x, y }] }]; `formatX(x)`, `formatY(y)` label them.
 * The drawing follows the width it is shown at (one SVG unit per pixel), so its text stays readable
 * from phones to wide screens.
 */
export function lineChart({ title, series, formatX, formatY }) {
  const count = series[0]?.points.length ?? 0;
  // At least 2, so an idle series still has a labelled axis and the middle line is a whole number.
  const max = Math.max(2, niceMax(Math.max(0, ...series.flatMap((s) => s.points.map((p) => p.y)))));
  const readoutId = uid('chart-readout');
  const chart = svg('svg', {
    class: 'chart',
    role: 'img',
    tabindex: '0',
    'aria-label': `${title}. Use the arrow keys to read the values of each point.`,
    'aria-describedby': readoutId,
  });
  const readout = h('p', { class: 'chart-readout', id: readoutId, 'aria-live': 'polite' }, hint());
  let width = 640;
  let height = 220;
  let selected = -1;
  let geometry = null;

  const draw = () => {
    const innerWidth = width - PAD.left - PAD.right;
    const innerHeight = height - PAD.top - PAD.bottom;
    const xAt = (i) => PAD.left + (count <= 1 ? innerWidth / 2 : (i * innerWidth) / (count - 1));
    const yAt = (y) => PAD.top + innerHeight - (y / max) * innerHeight;
    const grid = (Number.isInteger(max / 2) ? [0, 0.5, 1] : [0, 1]).map((fraction) => {
      const y = PAD.top + innerHeight - fraction * innerHeight;
      return svg(
        'g',
        { class: 'grid' },
        svg('line', { x1: PAD.left, x2: width - PAD.right, y1: y, y2: y }),
        svg('text', { x: PAD.left - 6, y: y + 4, 'text-anchor': 'end' }, formatY(max * fraction)),
      );
    });
    const labelled = count === 0 ? [] : [...new Set([0, Math.floor((count - 1) / 2), count - 1])];
    const xLabels = labelled.map((i) =>
      svg(
        'text',
        {
          class: 'x-label',
          x: xAt(i),
          y: height - 8,
          'text-anchor': i === 0 ? 'start' : i === count - 1 ? 'end' : 'middle',
        },
        formatX(series[0].points[i].x),
      ),
    );
    const lines = series.map((s) =>
      svg('polyline', {
        class: `series ${s.className}`,
        points: s.points.map((p, i) => `${xAt(i).toFixed(1)},${yAt(p.y).toFixed(1)}`).join(' '),
      }),
    );
    const guide = svg('line', { class: 'guide', y1: PAD.top, y2: PAD.top + innerHeight, visibility: 'hidden' });
    const dots = series.map((s) => svg('circle', { class: `dot ${s.className}`, r: 4, visibility: 'hidden' }));
    chart.setAttribute('viewBox', `0 0 ${width} ${height}`);
    chart.replaceChildren(...grid, ...xLabels, ...lines, guide, ...dots);
    geometry = { xAt, yAt, innerWidth, guide, dots };
    if (selected >= 0) select(selected);
  };

  const select = (i) => {
    if (count === 0 || !geometry) return;
    selected = Math.max(0, Math.min(count - 1, i));
    const { xAt, yAt, guide, dots } = geometry;
    const x = xAt(selected);
    guide.setAttribute('x1', x);
    guide.setAttribute('x2', x);
    guide.setAttribute('visibility', 'visible');
    series.forEach((s, k) => {
      dots[k].setAttribute('cx', x);
      dots[k].setAttribute('cy', yAt(s.points[selected].y));
      dots[k].setAttribute('visibility', 'visible');
    });
    readout.replaceChildren(
      h('strong', {}, formatX(series[0].points[selected].x)),
      ...series.map((s) =>
        h('span', { class: `readout-item ${s.className}` }, `${s.name}: ${formatY(s.points[selected].y)}`),
      ),
    );
  };
  const clear = () => {
    selected = -1;
    if (!geometry) return;
    geometry.guide.setAttribute('visibility', 'hidden');
    for (const dot of geometry.dots) dot.setAttribute('visibility', 'hidden');
    readout.replaceChildren(hint());
  };

  chart.addEventListener('pointermove', (event) => {
    const box = chart.getBoundingClientRect();
    const x = ((event.clientX - box.left) / box.width) * width;
    select(count <= 1 ? 0 : Math.round(((x - PAD.left) / geometry.innerWidth) * (count - 1)));
  });
  chart.addEventListener('pointerleave', () => {
    if (document.activeElement !== chart) clear();
  });
  chart.addEventListener('focus', () => select(selected >= 0 ? selected : count - 1));
  chart.addEventListener('blur', clear);
  chart.addEventListener('keydown', (event) => {
    const moves = { ArrowLeft: selected - 1, ArrowRight: selected + 1, Home: 0, End: count - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    select(moves[event.key]);
  });

  const legend = h(
    'ul',
    { class: 'legend', 'aria-hidden': 'true' },
    series.map((s) => h('li', { class: s.className }, s.name)),
  );
  const figure = h('figure', { class: 'chart-figure' }, h('figcaption', {}, title), legend, chart, readout);
  draw();
  new ResizeObserver(([entry]) => {
    const shown = Math.round(entry.contentRect.width);
    if (shown < 120 || shown === width) return;
    width = shown;
    height = shown < 480 ? 180 : 220;
    draw();
  }).observe(figure);
  return figure;
}

function hint() {
  return h('span', { class: 'muted' }, 'Point at the chart, or focus it and use the arrow keys, to read values.');
}

/** A round axis maximum at or above `value` (1, 2 or 5 times a power of ten). */
function niceMax(value) {
  if (value <= 0) return 0;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
