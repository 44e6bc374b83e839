/** Human-readable output: aligned tables and `label: value` blocks on stdout. */

/** Columns padded to their widest cell; the last column is not padded (it may be long). */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `label:  value` lines with the values aligned. */
export function formatFields(fields: [string, string | number | boolean][]): string {
  const width = Math.max(...fields.map(([label]) => label.length)) + 1;
  return fields.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${value}`).join('\n');
}

export function printText(text: string): void {
  process.stdout.write(`${text}\n`);
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
  return truncate(parts.join(' · ').replace(/\s+/g, ' ').trim(), width);
}

export function truncate(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
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
