import { ApiError, dataPlaneApi } from '../api.js';
import { confirmDialog } from '../dialog.js';
import { busy, field, h, notice, replaceChildren } from '../dom.js';
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
  const pageSize = Math.max(1, Math.min(PAGE_SIZE, record.max_reads_per_request));

  // Cursors of the pages seen so far: Previous goes back without asking the server for one.
  let cursors = [''];
  let page = 0;
  let nextCursor = '';
  const list = h('div', { class: 'doc-list' });
  const pageInfo = h('span', { class: 'page-info', 'aria-live': 'polite' });
  const previous = h('button', { type: 'button', class: 'secondary' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary' }, 'Next page');

  const deleteDocument = async (id) => {
    const ns = namespace.control.value;
    const ok = await confirmDialog({
      title: 'Delete document',
      message: `Delete document "${id}" from namespace ${namespaceLabel(ns)}? This cannot be undone.`,
      confirmLabel: 'Delete document',
      danger: true,
    });
    if (!ok) return;
    try {
      const result = await data('delete', ns, { ids: [id] });
      toast(result?.deleted ? `Deleted ${id}` : `${id} was already gone`);
      replaceChildren(fetched);
      await loadPage();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      replaceChildren(status, notice('error', error.message));
    }
  };

  const docCard = (doc) =>
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
            onclick: () => deleteDocument(doc.id),
          },
          'Delete',
        ),
      ),
      documentBody(doc),
    );

  // Both pager buttons stay disabled while a page loads; the answer decides which come back.
  const loadPage = async () => {
    replaceChildren(status);
    list.setAttribute('aria-busy', 'true');
    previous.disabled = true;
    next.disabled = true;
    try {
      const result = await data('range', namespace.control.value, {
        cursor: cursors[page],
        limit: pageSize,
        includeData: true,
        includeMetadata: true,
      });
      nextCursor = result?.nextCursor ?? '';
      const docs = result?.vectors ?? [];
      replaceChildren(
        list,
        docs.length === 0
          ? h('p', { class: 'empty' }, page === 0 ? 'This namespace has no documents.' : 'No more documents.')
          : h('ul', { class: 'docs' }, docs.map(docCard)),
      );
      pageInfo.textContent =
        docs.length === 0
          ? `Page ${page + 1}`
          : `Page ${page + 1}: ${docs.length} document${docs.length === 1 ? '' : 's'}`;
      previous.disabled = page === 0;
      next.disabled = nextCursor === '' || nextCursor === '0';
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      replaceChildren(status, notice('error', error.message));
      previous.disabled = page === 0;
    } finally {
      list.removeAttribute('aria-busy');
    }
  };
  // Disabling the clicked button drops its focus: put it back on a pager button that still works.
  const keepFocus = (preferred, other) => (preferred.disabled ? other : preferred).focus();
  previous.addEventListener('click', async () => {
    page = Math.max(0, page - 1);
    await loadPage();
    keepFocus(previous, next);
  });
  next.addEventListener('click', async () => {
    cursors = [...cursors.slice(0, page + 1), nextCursor];
    page += 1;
    await loadPage();
    keepFocus(next, previous);
  });
  const restart = async () => {
    cursors = [''];
    page = 0;
    await loadPage();
  };
  namespace.control.addEventListener('change', () => {
    replaceChildren(fetched);
    restart();
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
    const id = fetchId.control.value.trim();
    if (!id) {
      fetchId.setError('Enter a document id.');
      fetchId.control.focus();
      return;
    }
    await busy(fetchButton, async () => {
      try {
        const [doc] = await data('fetch', namespace.control.value, {
          ids: [id],
          includeData: true,
          includeMetadata: true,
        });
        replaceChildren(
          fetched,
          doc
            ? h('ul', { class: 'docs' }, docCard(doc))
            : notice('info', `No document "${id}" in namespace ${namespaceLabel(namespace.control.value)}.`),
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
      currentNamespace: () => namespace.control.value,
      onUploaded: async (uploadedTo) => {
        // Show what was uploaded: switch to its namespace, adding it when it is new.
        const select = namespace.control;
        if (![...select.options].some((option) => option.value === uploadedTo)) {
          select.append(h('option', { value: uploadedTo }, namespaceLabel(uploadedTo)));
        }
        select.value = uploadedTo;
        replaceChildren(fetched);
        await restart();
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
  await loadPage();
}
