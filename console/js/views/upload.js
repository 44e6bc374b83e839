import { ApiError, addressableNamespace, UNADDRESSABLE_NAMESPACE } from '../api.js';
import { busy, field, h, notice, replaceChildren, uid } from '../dom.js';
import { formatCount } from '../format.js';
import { API_MAX_WRITE_BATCH, perRequestLimit } from '../limits.js';
import { namespaceLabel } from './namespaces.js';

/**
 * Reads the documents of a file: one JSON document (an array of documents, or a single document,
 * however it is laid out) or, when the whole file is not JSON, JSON Lines. Throws an Error whose
 * message says what is wrong and, for JSON Lines, on which line.
 */
export function parseDocuments(text) {
  const content = text.replace(/^\uFEFF/, '');
  if (content.trim() === '') throw new Error('The file is empty.');
  let whole;
  try {
    whole = JSON.parse(content);
  } catch (error) {
    // A file that opens an array is one JSON document, never JSON Lines: say where it breaks.
    if (content.trimStart().startsWith('[')) throw new Error(`The file is not valid JSON: ${error.message}`);
    return parseLines(content);
  }
  if (isDocumentObject(whole)) return [whole];
  if (!Array.isArray(whole)) throw new Error('Expected a document, an array of documents, or one document per line.');
  const wrong = whole.findIndex((doc) => !isDocumentObject(doc));
  if (wrong >= 0) throw new Error(`Item ${wrong + 1} of the array is not a {"id", "content"} object.`);
  return whole;
}

function parseLines(content) {
  const docs = [];
  const lines = content.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    let doc;
    try {
      doc = JSON.parse(lines[i]);
    } catch {
      throw new Error(`Line ${i + 1} is not valid JSON.`);
    }
    if (!isDocumentObject(doc)) throw new Error(`Line ${i + 1} is not a {"id", "content"} object.`);
    docs.push(doc);
  }
  return docs;
}

function isDocumentObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
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

/** Waits `ms`, or rejects with the abort as soon as `signal` fires. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
}

const plural = (count, word, suffix = 's') => `${formatCount(count)} ${word}${count === 1 ? '' : suffix}`;

/**
 * The upload form: a file, a target namespace, a progress bar, batches through `upsert-data`.
 * `signal` is the page's: leaving the page or signing out stops the upload between or during
 * batches, so no request goes out with the index's token afterwards.
 */
export function uploadSection({ data, record, namespaces, currentNamespace, onUploaded, bodyLimitBytes, signal }) {
  const file = field(
    'JSON or JSONL file',
    h('input', { type: 'file', id: 'upload-file', accept: '.json,.jsonl,.ndjson,application/json' }),
    'One {"id", "content", "metadata"} object, an array of them, or one per line (JSON Lines).',
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
    namespaces.filter((name) => name && addressableNamespace(name)).map((name) => h('option', { value: name })),
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
    target.setError('');
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
    if (docs.length === 0) {
      replaceChildren(status, notice('info', 'The file holds no documents: there was nothing to upload.'));
      return;
    }
    // Namespaces are exact (" sp " and "sp" are two): the name goes out as typed.
    const namespace = target.control.dataset.touched ? target.control.value : currentNamespace();
    if (!addressableNamespace(namespace)) {
      target.setError(UNADDRESSABLE_NAMESPACE);
      target.control.focus();
      return;
    }
    const limit = bodyLimitBytes ?? 1_048_576;
    // Leave room under the body limit for the array brackets and rounding.
    const batches = batchDocuments(
      docs,
      perRequestLimit(record.max_writes_per_request, API_MAX_WRITE_BATCH),
      Math.floor(limit * 0.9),
    );
    progress.hidden = false;
    progress.max = docs.length;
    progress.value = 0;
    await busy(submit, async () => {
      let sent = 0;
      for (const batch of batches) {
        try {
          await upsertWithRetry(data, namespace, batch, signal);
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
      replaceChildren(status, notice('success', uploadedText(docs, namespace, batches.length)));
      await onUploaded(namespace);
    });
  });
  return form;
}

/** The summary of a finished upload, counting documents stored rather than entries sent. */
function uploadedText(docs, namespace, batchCount) {
  const distinct = new Set(docs.map((doc) => doc.id)).size;
  let text = `Uploaded ${plural(distinct, 'document')} into namespace ${namespaceLabel(namespace)} in ${plural(batchCount, 'batch', 'es')}.`;
  if (distinct < docs.length) {
    text += ` The file has ${formatCount(docs.length)} entries: later entries with the same id replaced earlier ones.`;
  }
  return text;
}

/**
 * One batch, retried after a 429 when the server asks for a short wait (a per-second rate limit);
 * a long Retry-After means a daily or monthly quota, which waiting here will not fix.
 */
async function upsertWithRetry(data, namespace, batch, signal) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await data('upsert-data', namespace, batch, signal);
    } catch (error) {
      const rateLimited = error instanceof ApiError && error.status === 429;
      if (!rateLimited || attempt >= 4 || !error.retryAfter || error.retryAfter > 10) throw error;
      await sleep(error.retryAfter * 1000, signal);
    }
  }
}
