import { ApiError } from '../api.js';
import { busy, field, h, notice, replaceChildren, uid } from '../dom.js';
import { formatCount } from '../format.js';
import { namespaceLabel } from './namespaces.js';

/**
 * Reads a JSON array or JSON Lines file of `{id, content, metadata?}` documents. Throws an Error
 * whose message names the line of a JSONL syntax error.
 */
export function parseDocuments(text) {
  const trimmed = text.trim();
  if (trimmed === '') throw new Error('The file is empty.');
  if (trimmed.startsWith('[')) {
    let docs;
    try {
      docs = JSON.parse(trimmed);
    } catch (error) {
      throw new Error(`The file is not valid JSON: ${error.message}`);
    }
    if (!Array.isArray(docs)) throw new Error('Expected a JSON array of documents.');
    return docs;
  }
  const docs = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    try {
      docs.push(JSON.parse(lines[i]));
    } catch {
      throw new Error(`Line ${i + 1} is not valid JSON.`);
    }
  }
  return docs;
}

/**
 * Splits documents into upsert batches of at most `maxCount` documents and, as far as a single
 * document allows, at most `maxBytes` of JSON (the server's body limit).
 */
export function batchDocuments(docs, maxCount, maxBytes) {
  const batches = [];
  let batch = [];
  let bytes = 2;
  for (const doc of docs) {
    const size = new TextEncoder().encode(JSON.stringify(doc)).length + 1;
    if (batch.length > 0 && (batch.length >= maxCount || bytes + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 2;
    }
    batch.push(doc);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The upload form: a file, a target namespace, a progress bar, batches through `upsert-data`. */
export function uploadSection({ data, record, namespaces, currentNamespace, onUploaded, bodyLimitBytes }) {
  const file = field(
    'JSON or JSONL file',
    h('input', { type: 'file', id: 'upload-file', accept: '.json,.jsonl,.ndjson,application/json' }),
    'An array of {"id", "content", "metadata"} objects, or one such object per line.',
  );
  const listId = uid('namespaces');
  const target = field(
    'Into namespace',
    h('input', { type: 'text', id: 'upload-namespace', list: listId, autocomplete: 'off', placeholder: '(default)' }),
    'Leave empty for the default namespace; a new name creates the namespace.',
  );
  const datalist = h(
    'datalist',
    { id: listId },
    namespaces.filter(Boolean).map((name) => h('option', { value: name })),
  );
  const progress = h('progress', { id: 'upload-progress', max: '1', value: '0', hidden: true });
  const progressText = h('p', { class: 'progress-text', 'aria-live': 'polite' });
  const status = h('div', { class: 'form-status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const form = h(
    'form',
    { class: 'card upload', novalidate: true, 'aria-labelledby': 'upload-heading' },
    h('h2', { id: 'upload-heading' }, 'Upload documents'),
    h('div', { class: 'field-row' }, file.wrapper, target.wrapper),
    datalist,
    h('label', { for: 'upload-progress', class: 'visually-hidden' }, 'Upload progress'),
    progress,
    progressText,
    status,
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('focusin', (event) => {
    // Default the target to the namespace being browsed, until the user types one.
    if (event.target === target.control && !target.control.dataset.touched) target.control.value = currentNamespace();
  });
  target.control.addEventListener('input', () => {
    target.control.dataset.touched = 'true';
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    file.setError('');
    replaceChildren(status);
    progress.hidden = true;
    progressText.textContent = '';
    const chosen = file.control.files?.[0];
    if (!chosen) {
      file.setError('Choose a file to upload.');
      file.control.focus();
      return;
    }
    let docs;
    try {
      docs = parseDocuments(await chosen.text());
    } catch (error) {
      file.setError(error.message);
      file.control.focus();
      return;
    }
    const namespace = target.control.dataset.touched ? target.control.value.trim() : currentNamespace();
    const limit = bodyLimitBytes ?? 1_048_576;
    // Leave room under the body limit for the array brackets and rounding.
    const batches = batchDocuments(docs, Math.max(1, record.max_writes_per_request), Math.floor(limit * 0.9));
    progress.hidden = false;
    progress.max = docs.length;
    progress.value = 0;
    await busy(submit, async () => {
      let sent = 0;
      for (const batch of batches) {
        try {
          await upsertWithRetry(data, namespace, batch);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          const first = batch[0]?.id ?? '?';
          replaceChildren(
            status,
            notice(
              'error',
              `Stopped after ${formatCount(sent)} of ${formatCount(docs.length)} documents: the batch starting at "${first}" failed: ${error.message}`,
            ),
          );
          return;
        }
        sent += batch.length;
        progress.value = sent;
        progressText.textContent = `${formatCount(sent)} of ${formatCount(docs.length)} documents uploaded`;
      }
      replaceChildren(
        status,
        notice(
          'success',
          `Uploaded ${formatCount(sent)} documents into namespace ${namespaceLabel(namespace)} in ${batches.length} batch${batches.length === 1 ? '' : 'es'}.`,
        ),
      );
      await onUploaded(namespace);
    });
  });
  return form;
}

/**
 * One batch, retried after a 429 when the server asks for a short wait (a per-second rate limit);
 * a long Retry-After means a daily or monthly quota, which waiting here will not fix.
 */
async function upsertWithRetry(data, namespace, batch) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await data('upsert-data', namespace, batch);
    } catch (error) {
      const rateLimited = error instanceof ApiError && error.status === 429;
      if (!rateLimited || attempt >= 4 || !error.retryAfter || error.retryAfter > 10) throw error;
      await sleep(error.retryAfter * 1000);
    }
  }
}
