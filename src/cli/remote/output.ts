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

/**
 * Cuts `text` to at most `width` terminal columns, ending in `…` when cut. Counts code points,
 * so a surrogate pair (an emoji) is never split, and East Asian wide characters as two columns.
 */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let kept = '';
  let used = 0;
  for (const char of text) {
    const next = charWidth(char);
    if (used + next > width - 1) break;
    kept += char;
    used += next;
  }
  return `${kept}…`;
}

/**
 * Terminal columns `text` takes: two for East Asian wide characters and emoji shown as pictures,
 * none for combining marks, zero-width characters and variation selectors, else one. (A sequence
 * joined with U+200D, such as a family emoji, still counts its parts: terminals differ there.)
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

function padToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

// The wide ranges of Unicode's East Asian Width (W and F) that text is likely to hold; emoji are
// found by their Unicode property instead, wherever their block.
const WIDE: [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x20000, 0x3fffd],
];
const EMOJI = /^\p{Emoji_Presentation}$/u;
// Variation selectors are nonspacing marks (Mn) too.
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200f\u2060]$/u;

function charWidth(char: string): number {
  if (ZERO_WIDTH.test(char)) return 0;
  if (EMOJI.test(char)) return 2;
  const code = char.codePointAt(0) ?? 0;
  return WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
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
