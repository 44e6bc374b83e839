import { h } from '../dom.js';
import { formatValue } from '../format.js';

/** An object's fields as a definition list (nested values as compact JSON), or a dash when empty. */
export function fieldList(object, className) {
  const entries = object && typeof object === 'object' ? Object.entries(object) : [];
  if (entries.length === 0) return h('p', { class: 'muted' }, '—');
  return h(
    'dl',
    { class: `kv ${className}` },
    entries.map(([key, value]) => [h('dt', {}, key), h('dd', {}, formatValue(value))]),
  );
}

/** A document's content and metadata, each under a small heading. */
export function documentBody(doc) {
  return h(
    'div',
    { class: 'doc-body' },
    h('div', {}, h('h4', {}, 'Content'), fieldList(doc.content, 'content')),
    h('div', {}, h('h4', {}, 'Metadata'), fieldList(doc.metadata, 'metadata')),
  );
}
