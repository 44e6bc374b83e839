import { ApiError, dataPlaneApi } from '../api.js';
import { busy, field, h, notice, replaceChildren } from '../dom.js';
import { API_MAX_TOP_K, perRequestLimit } from '../limits.js';
import { documentBody } from './document-view.js';
import { filterErrorPosition, filterErrorView } from './filter-error.js';
import { indexHeader } from './index-header.js';
import { listNamespaces, namespaceSelect } from './namespaces.js';

const DEFAULT_TOP_K = 10;

/** `#/indexes/<id>/search`: the search playground, over the data plane with the index's token. */
export async function renderSearch({ main, api, signal, params }) {
  const record = await api.get(`/search/${encodeURIComponent(params[0])}`, signal);
  const data = dataPlaneApi(record);
  const namespaces = await listNamespaces(data, signal);

  const namespace = field('Namespace', namespaceSelect(namespaces, 'search-namespace'));
  const query = field('Query', h('input', { type: 'search', id: 'search-query', autocomplete: 'off' }));
  // Above the index's reads per request every search fails, so the default stays under it.
  const maxTopK = perRequestLimit(record.max_reads_per_request, API_MAX_TOP_K);
  const topK = field(
    'Results (topK)',
    h('input', {
      type: 'number',
      id: 'search-topk',
      min: '1',
      max: String(maxTopK),
      value: String(Math.min(DEFAULT_TOP_K, maxTopK)),
      inputmode: 'numeric',
    }),
  );
  const weightOutput = h('output', { for: 'search-weight', class: 'range-value' }, '0.75');
  const weight = field(
    'Semantic weight',
    h('input', { type: 'range', id: 'search-weight', min: '0', max: '1', step: '0.05', value: '0.75' }),
    '0 = full text only, 1 = semantic only.',
  );
  weight.control.addEventListener('input', () => {
    weightOutput.value = Number(weight.control.value).toFixed(2);
  });
  weight.wrapper.querySelector('label').append(' ', weightOutput);
  const filter = field(
    'Filter',
    h('input', { type: 'text', id: 'search-filter', class: 'mono', autocomplete: 'off', spellcheck: 'false' }),
    "e.g. genre = 'sci-fi' AND @metadata.year >= 1977",
  );
  const rerank = h('input', { type: 'checkbox', id: 'search-rerank' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Search');
  const status = h('div', { class: 'form-status' });
  const results = h('section', { class: 'results', 'aria-label': 'Results', 'aria-live': 'polite' });

  const form = h(
    'form',
    { class: 'card playground', novalidate: true, 'aria-label': 'Search' },
    h('div', { class: 'field-row' }, namespace.wrapper, query.wrapper),
    h('div', { class: 'field-row' }, topK.wrapper, weight.wrapper),
    filter.wrapper,
    h('div', { class: 'check' }, rerank, h('label', { for: 'search-rerank' }, 'Rerank the results')),
    status,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    filter.setError('');
    topK.setError('');
    replaceChildren(status);
    const count = topKValue(topK.control.value, maxTopK);
    if (typeof count === 'string') {
      topK.setError(count);
      topK.control.focus();
      return;
    }
    const body = {
      query: query.control.value,
      topK: count,
      semanticWeight: Number(weight.control.value),
      reranking: rerank.checked,
      includeData: true,
      includeMetadata: true,
    };
    if (filter.control.value.trim()) body.filter = filter.control.value;
    await busy(submit, async () => {
      try {
        showHits(results, await data('search', namespace.control.value, body, signal));
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        replaceChildren(results);
        showSearchError(error, { filter, topK, status, filterText: body.filter ?? '' });
      }
    });
  });

  replaceChildren(main, indexHeader(record, '/search'), form, results);
}

/** The number of results asked for, or the message saying why the field's text is not one. */
function topKValue(text, max) {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isInteger(value) || value < 1 || value > max) return `Enter a whole number of results from 1 to ${max}.`;
  return value;
}

function showSearchError(error, { filter, topK, status, filterText }) {
  const position = filterErrorPosition(error.message);
  if (error.status === 400 && position !== null) {
    filter.setError(filterErrorView(filterText, error.message));
    filter.control.focus();
    filter.control.setSelectionRange(position, Math.min(position + 1, filterText.length));
  } else if (error.status === 400 && /topK/.test(error.message)) {
    topK.setError(error.message);
    topK.control.focus();
  } else {
    replaceChildren(status, notice('error', error.message));
  }
}

function showHits(container, hits) {
  if (!Array.isArray(hits) || hits.length === 0) {
    replaceChildren(container, h('p', { class: 'empty' }, 'No documents match.'));
    return;
  }
  replaceChildren(
    container,
    h('h2', {}, `${hits.length} result${hits.length === 1 ? '' : 's'}`),
    h(
      'ol',
      { class: 'hits' },
      hits.map((hit) => {
        const bar = h('span', { class: 'score-fill' });
        bar.style.width = `${Math.max(0, Math.min(1, hit.score)) * 100}%`;
        return h(
          'li',
          { class: 'hit card', 'data-id': hit.id },
          h(
            'div',
            { class: 'hit-head' },
            h('span', { class: 'hit-id mono' }, hit.id),
            h(
              'span',
              { class: 'score' },
              h('span', { class: 'score-bar', 'aria-hidden': 'true' }, bar),
              `score ${hit.score.toFixed(3)}`,
            ),
          ),
          documentBody(hit),
        );
      }),
    ),
  );
}
