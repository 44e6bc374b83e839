import { h } from '../dom.js';

/** The namespace label people see: the default namespace is the empty string. */
export function namespaceLabel(name) {
  return name === '' ? '(default)' : name;
}

/** A select of the index's namespaces (from `list-namespaces`), the default one always present. */
export function namespaceSelect(namespaces, id, selected = '') {
  const names = [...new Set(['', ...namespaces])].sort((a, b) => a.localeCompare(b));
  return h(
    'select',
    { id },
    names.map((name) => h('option', { value: name, selected: name === selected }, namespaceLabel(name))),
  );
}

/** The namespaces of an index; a failure leaves the default namespace only. */
export async function listNamespaces(data, signal) {
  try {
    const result = await data('list-namespaces', '', undefined, signal);
    return Array.isArray(result) ? result : [];
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    return [];
  }
}
