// Plain-text tables and number formats for the benchmark's report.

/** Prints `rows` (arrays of strings) under `header`: first column left-aligned, the others right. */
export function printTable(header, rows, out = console.log) {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
  );
  const format = (cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]),
      )
      .join('  ');
  out(format(header));
  out(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of rows) out(format(row));
}

const missing = (value) => value === undefined || value === null || Number.isNaN(value);
export const ms = (value) => (missing(value) ? '–' : value < 10 ? value.toFixed(2) : value.toFixed(1));
export const rate = (value) => (missing(value) ? '–' : Math.round(value).toLocaleString('en-US'));
export const qps = (value) =>
  missing(value) ? '–' : value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString('en-US');
export const mb = (bytes) => (missing(bytes) ? '–' : `${Math.round(bytes / 1024 / 1024).toLocaleString('en-US')} MB`);
export const ratio = (value) => (missing(value) ? '–' : `${value.toFixed(2)}×`);
