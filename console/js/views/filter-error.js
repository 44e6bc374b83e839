import { h } from '../dom.js';

// The data plane names the 0-based position of a filter syntax error in its message
// ("Invalid filter at position 12: expected …"; src/engine/filter-lexer.ts).
const POSITION = /at position (\d+)/;

/** The position a filter error message names, or null. */
export function filterErrorPosition(message) {
  const match = POSITION.exec(message);
  return match ? Number(match[1]) : null;
}

/**
 * The error under the filter field: the message, then the filter with the character at the
 * position marked and a caret line under it (a position at the end marks the end).
 */
export function filterErrorView(filter, message) {
  const position = filterErrorPosition(message);
  if (position === null) return h('p', {}, message);
  const at = Math.min(position, filter.length);
  const marked = filter.slice(at, at + 1) || ' ';
  return [
    h('p', {}, message),
    h(
      'pre',
      { class: 'filter-echo', 'aria-hidden': 'true' },
      h('code', {}, filter.slice(0, at), h('mark', { class: 'filter-caret-char' }, marked), filter.slice(at + 1)),
      '\n',
      h('span', { class: 'caret-line' }, `${' '.repeat(at)}^`),
    ),
  ];
}
