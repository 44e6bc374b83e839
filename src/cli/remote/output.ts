import stringWidth from 'string-width';

/** Human-readable output: aligned tables and `label: value` blocks on stdout. */

// C0 controls, DEL and C1 controls (U+0080–U+009F, e.g. U+009B, a one-character CSI).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what gets escaped
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text from the server (names, ids, document content) made safe for a terminal: every control
 * character becomes `\xHH`, so a stored escape sequence cannot clear the screen, recolour it or
 * set the window title. Newlines are escaped too: a table cell must stay on its line.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Columns padded to their widest cell; the last column is not padded (it may be long). */
export function formatTable(headers: string[], rows: string[][]): string {
  const safe = rows.map((row) => row.map(printable));
  const widths = headers.map((header, column) =>
    Math.max(displayWidth(header), ...safe.map((row) => displayWidth(row[column] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : padToWidth(cell, widths[column])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...safe.map(line)].join('\n');
}

/** `label:  value` lines with the values aligned. */
export function formatFields(fields: [string, string | number | boolean][]): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${printable(String(value))}`).join('\n');
}

/** Prints lines for people: control characters other than the line breaks are escaped. */
export function printText(text: string): void {
  process.stdout.write(`${text.split('\n').map(printable).join('\n')}\n`);
}

/** A quota for people: -1 is "unlimited", others with thousands separators. */
export function formatLimit(value: unknown): string {
  return value === -1 ? 'unlimited' : formatCount(value);
}

export function formatCount(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

/** `1 document`, `5,000 documents`. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** Bytes as B / KiB / MiB / GiB with one decimal. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * A one-line preview of a document's content: `key: value · key: value`, nested values as
 * JSON, whitespace collapsed, cut to `width` characters with an ellipsis.
 */
export function contentPreview(content: unknown, width: number): string {
  const parts =
    typeof content === 'object' && content !== null && !Array.isArray(content)
      ? Object.entries(content).map(
          ([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
        )
      : [content === undefined ? '' : JSON.stringify(content)];
  return truncate(printable(parts.join(' · ').replace(/\s+/g, ' ').trim()), width);
}

const graphemes = new Intl.Segmenter();

/**
 * Cuts `text` to at most `width` terminal columns, ending in `…` when cut. Cuts between grapheme
 * clusters, so an emoji (a surrogate pair, or several joined) or a letter with its accents is
 * never split.
 */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const next = displayWidth(segment);
    if (used + next > width - 1) break;
    kept += segment;
    used += next;
  }
  return `${kept}…`;
}

/** Terminal columns `text` takes (string-width: East Asian wide characters and emoji count two). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

const BARS = '▁▂▃▄▅▆▇█';

/** A sparkline of a series (e.g. requests per minute), scaled to its own maximum. */
export function sparkline(values: number[]): string {
  const max = Math.max(0, ...values);
  if (max === 0) return BARS[0].repeat(values.length);
  return values.map((value) => BARS[Math.min(BARS.length - 1, Math.floor((value / max) * (BARS.length - 1)))]).join('');
}

/** Creation times are Unix seconds; shown as ISO 8601 UTC to the second. */
export function formatTime(unixSeconds: unknown): string {
  return typeof unixSeconds === 'number' ? new Date(unixSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
}
