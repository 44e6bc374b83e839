import { ApiError, dataPlaneApi } from '../api.js';
import { confirmDialog } from '../dialog.js';
import { busy, field, h, isAbort, notice, replaceChildren } from '../dom.js';
import { perRequestLimit } from '../limits.js';
import { toast } from '../toast.js';
import { documentBody } from './document-view.js';
import { indexHeader } from './index-header.js';
import { listNamespaces, namespaceLabel, namespaceSelect } from './namespaces.js';
import { uploadSection } from './upload.js';

const PAGE_SIZE = 20;

/** `#/indexes/<id>/documents`: page through a namespace, fetch and delete by id, upload a file. */
export async function renderDocuments({ main, api, settings, signal, params }) {
  const record = await api.get(`/search/${encodeURIComponent(params[0])}`, signal);
  const data = dataPlaneApi(record);
  const namespaces = await listNamespaces(data, signal);
  const namespace = field('Namespace', namespaceSelect(namespaces, 'documents-namespace'));
  const status = h('div', { class: 'form-status' });
  const pageSize = perRequestLimit(record.max_reads_per_request, PAGE_SIZE);

  // What the list shows: its namespace, page, the cursors of the pages up to it (Previous goes
  // back without asking the server for one) and the cursor after it. It changes only when a page
  // arrives, so a failed load leaves the list, the pager and the namespace select as they were.
  let shown = { namespace: '', page: 0, cursors: [''], nextCursor: '', count: null };
  let loads = 0;
  const list = h('div', { class: 'doc-list' });
  const pageInfo = h('span', { class: 'page-info', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', class: 'secondary' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Next page');

  // `ns`: the namespace the card was listed or fetched from, whatever the select says by then.
  const deleteDocument = async (id, ns) => {
    const ok = await confirmDialog({
      title: 'Delete document',
      message: `Delete document "${id}" from namespace ${namespaceLabel(ns)}? This cannot be undone.`,
      confirmLabel: 'Delete document',
      danger: true,
    });
    if (!ok) return;
    try {
      const result = await data('delete', ns, { ids: [id] }, signal);
      toast(result?.deleted ? `Deleted ${id}` : `${id} was already gone`);
      replaceChildren(fetched);
      if (ns === shown.namespace) await load({ ...shown });
    } catch (error) {
      if (isAbort(error)) return;
      if (!(error instanceof ApiError)) throw error;
      replaceChildren(status, notice('error', error.message));
    }
  };

  const docCard = (doc, ns) =>
    h(
      'li',
      { class: 'doc card', 'data-id': doc.id },
      h(
        'div',
        { class: 'hit-head' },
        h('span', { class: 'hit-id mono' }, doc.id),
        h(
          'button',
          {
            type: 'button',
            class: 'danger-outline small',
            'aria-label': `Delete ${doc.id}`,
            onclick: () => deleteDocument(doc.id, ns),
          },
          'Delete',
        ),
      ),
      documentBody(doc),
    );

  const showPager = () => {
    const { page, count, nextCursor } = shown;
    pageInfo.textContent =
      count === null
        ? ''
        : count === 0
          ? `Page ${page + 1}`
          : `Page ${page + 1}: ${count} document${count === 1 ? '' : 's'}`;
    previous.disabled = page === 0;
    next.disabled = nextCursor === '' || nextCursor === '0';
  };

  // Loads `target` (a namespace, page and cursors) into the list. Both pager buttons stay disabled
  // while it runs; a later load wins over an earlier one still on its way.
  const load = async (target) => {
    const ticket = ++loads;
    replaceChildren(status);
    list.setAttribute('aria-busy', 'true');
    previous.disabled = true;
    next.disabled = true;
    try {
      const result = await data(
        'range',
        target.namespace,
        { cursor: target.cursors[target.page], limit: pageSize, includeData: true, includeMetadata: true },
        signal,
      );
      if (ticket !== loads) return;
      const docs = result?.vectors ?? [];
      shown = { ...target, nextCursor: result?.nextCursor ?? '', count: docs.length };
      replaceChildren(
        list,
        docs.length === 0
          ? h('p', { class: 'empty' }, target.page === 0 ? 'This namespace has no documents.' : 'No more documents.')
          : h(
              'ul',
              { class: 'docs' },
              docs.map((doc) => docCard(doc, target.namespace)),
            ),
      );
    } catch (error) {
      if (isAbort(error) || ticket !== loads) return;
      if (!(error instanceof ApiError)) throw error;
      const what = target.namespace === shown.namespace ? 'This page' : `Namespace ${namespaceLabel(target.namespace)}`;
      replaceChildren(status, notice('error', `${what} could not be loaded: ${error.message}`));
      namespace.control.value = shown.namespace;
    } finally {
      if (ticket === loads) {
        list.removeAttribute('aria-busy');
        showPager();
      }
    }
  };
  // Disabling the clicked button drops its focus: put it back on a pager button that still works.
  const keepFocus = (preferred, other) => (preferred.disabled ? other : preferred).focus();
  previous.addEventListener('click', async () => {
    await load({ ...shown, page: Math.max(0, shown.page - 1) });
    keepFocus(previous, next);
  });
  next.addEventListener('click', async () => {
    const cursors = [...shown.cursors.slice(0, shown.page + 1), shown.nextCursor];
    await load({ ...shown, cursors, page: shown.page + 1 });
    keepFocus(next, previous);
  });
  const restart = (ns) => load({ namespace: ns, page: 0, cursors: [''] });
  namespace.control.addEventListener('change', () => {
    replaceChildren(fetched);
    restart(namespace.control.value);
  });

  // Fetch one document by id.
  const fetchId = field(
    'Document id',
    h('input', { type: 'text', id: 'fetch-id', autocomplete: 'off', spellcheck: 'false' }),
  );
  const fetchButton = h('button', { type: 'submit', class: 'secondary' }, 'Fetch');
  const fetched = h('div', { class: 'fetched', 'aria-live': 'polite' });
  const fetchForm = h(
    'form',
    { class: 'inline-form', novalidate: true, 'aria-label': 'Fetch by id' },
    fetchId.wrapper,
    fetchButton,
  );
  fetchForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    fetchId.setError('');
    // Ids are exact: " padded id " is not "padded id".
    const id = fetchId.control.value;
    if (id === '') {
      fetchId.setError('Enter a document id.');
      fetchId.control.focus();
      return;
    }
    const ns = namespace.control.value;
    await busy(fetchButton, async () => {
      try {
        const [doc] = await data('fetch', ns, { ids: [id], includeData: true, includeMetadata: true }, signal);
        replaceChildren(
          fetched,
          doc
            ? h('ul', { class: 'docs' }, docCard(doc, ns))
            : notice('info', `No document "${id}" in namespace ${namespaceLabel(ns)}.`),
        );
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        fetchId.setError(error.message);
      }
    });
  });

  replaceChildren(
    main,
    indexHeader(record, '/documents'),
    h('div', { class: 'card toolbar' }, namespace.wrapper, fetchForm),
    fetched,
    uploadSection({
      data,
      record,
      namespaces,
      bodyLimitBytes: settings.bodyLimitBytes,
      signal,
      currentNamespace: () => namespace.control.value,
      onUploaded: async (uploadedTo) => {
        // Show what was uploaded: switch to its namespace, adding it when it is new.
        const select = namespace.control;
        if (![...select.options].some((option) => option.value === uploadedTo)) {
          select.append(h('option', { value: uploadedTo }, namespaceLabel(uploadedTo)));
        }
        select.value = uploadedTo;
        replaceChildren(fetched);
        await restart(uploadedTo);
      },
    }),
    h(
      'section',
      { 'aria-labelledby': 'browse-heading' },
      h('div', { class: 'section-head' }, h('h2', { id: 'browse-heading' }, 'Documents'), pageInfo),
      status,
      list,
      h('div', { class: 'pager' }, previous, next),
    ),
  );
  await restart('');
}
