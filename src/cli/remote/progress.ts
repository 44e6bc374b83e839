/** Where the work stands: documents done, and how far along when the total is known. */
export interface ProgressState {
  done: number;
  /** Share of the work done, 0..1 (documents of a known total, or bytes of a file). */
  fraction?: number;
  elapsedMs: number;
}

export interface Progress {
  update(done: number, fraction?: number): void;
  /** A line printed above the bar (or as is), e.g. why the import waits. */
  note(message: string): void;
  /** Clears the bar; the command prints its summary next. */
  finish(): void;
}

export interface ProgressOptions {
  /** `imported`, `exported`: the verb of the plain progress lines. */
  verb: string;
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  enabled: boolean;
  now?: () => number;
}

const TTY_REDRAW_MS = 100;
const PLAIN_LINE_MS = 1000;
const BAR_WIDTH = 24;

/** `1,234 docs · 2,100 docs/s · 45% · ETA 0:12` (rate, share and ETA only once they mean something). */
export function describeProgress(state: ProgressState): string {
  const parts = [`${state.done.toLocaleString('en-US')} docs`];
  const seconds = state.elapsedMs / 1000;
  if (seconds > 0 && state.done > 0) parts.push(`${Math.round(state.done / seconds).toLocaleString('en-US')} docs/s`);
  if (state.fraction !== undefined) {
    const fraction = Math.min(1, Math.max(0, state.fraction));
    parts.push(`${Math.floor(fraction * 100)}%`);
    if (fraction > 0 && fraction < 1 && seconds > 0)
      parts.push(`ETA ${formatDuration((seconds * (1 - fraction)) / fraction)}`);
  }
  return parts.join(' · ');
}

/** `m:ss`, or `h:mm:ss` from an hour up. */
export function formatDuration(totalSeconds: number): string {
  const whole = Math.max(0, Math.round(totalSeconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = String(whole % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** `[#########---------------] ` for a known share, nothing otherwise. */
export function progressBar(fraction: number | undefined, width = BAR_WIDTH): string {
  if (fraction === undefined) return '';
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] `;
}

/**
 * A progress display on `stream` (stderr): a bar redrawn in place on a terminal; otherwise a
 * plain line at most once a second (`searchplane: imported 1,000 docs · …`), so logs stay short.
 */
export function createProgress(options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const started = now();
  const tty = Boolean(options.stream.isTTY);
  let lastDraw = Number.NEGATIVE_INFINITY;
  let barShown = false;
  let current: ProgressState = { done: 0, elapsedMs: 0 };

  const clearBar = () => {
    if (barShown) options.stream.write('\r\u001b[2K');
    barShown = false;
  };
  const drawBar = () => {
    const width = (options.stream.columns || 80) - 1;
    const description = describeProgress(current);
    // On a narrow terminal the numbers matter more than the bar.
    const withBar = `${progressBar(current.fraction)}${description}`;
    const text = withBar.length <= width ? withBar : description;
    options.stream.write(`\r\u001b[2K${text.slice(0, width)}`);
    barShown = true;
  };

  return {
    update(done, fraction) {
      if (!options.enabled) return;
      const time = now();
      current = { done, fraction, elapsedMs: time - started };
      const interval = tty ? TTY_REDRAW_MS : PLAIN_LINE_MS;
      if (time - lastDraw < interval) return;
      lastDraw = time;
      if (tty) drawBar();
      else options.stream.write(`searchplane: ${options.verb} ${describeProgress(current)}\n`);
    },
    note(message) {
      if (!options.enabled) return;
      clearBar();
      options.stream.write(`searchplane: ${message}\n`);
      if (tty && current.done > 0) drawBar();
    },
    finish() {
      clearBar();
    },
  };
}
