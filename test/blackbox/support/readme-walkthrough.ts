/**
 * Reads the README's walk-through the way a person follows it: its `sh` blocks in order, each
 * with the output it documents, and the placeholders a reader fills in from earlier outputs.
 * The markup it relies on is described in a comment at the top of that README section.
 */

/** One `sh` block of the walk-through. */
export interface WalkthroughStep {
  /** The block as written. */
  script: string;
  /** 1-based README line of the block's opening fence, for failure messages. */
  line: number;
  /** The documented output: a `# → …` line in the block, or the `json` block right after it. */
  documented?: string;
}

const SECTION_HEADING = /^## Walk-through\b/;
const OUTPUT_LINE = /^\s*# → (.*)$/;

/** The `sh` blocks of the `## Walk-through…` section of `markdown`, in order. */
export function walkthroughSteps(markdown: string): WalkthroughStep[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => SECTION_HEADING.test(line));
  if (start < 0) throw new Error('the README has no "## Walk-through" section');
  const rest = lines.slice(start + 1);
  const length = rest.findIndex((line) => /^## /.test(line));
  const section = length < 0 ? rest : rest.slice(0, length);

  const fences: { lang: string; body: string[]; open: number; close: number }[] = [];
  for (let i = 0; i < section.length; i++) {
    const open = /^```(\w*)\s*$/.exec(section[i]);
    if (!open) continue;
    const close = section.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (close < 0) throw new Error(`unclosed code block at README line ${start + 2 + i}`);
    fences.push({ lang: open[1], body: section.slice(i + 1, close), open: i, close });
    i = close;
  }

  const steps: WalkthroughStep[] = [];
  fences.forEach((fence, n) => {
    if (fence.lang !== 'sh') return;
    const inline = fence.body.map((line) => OUTPUT_LINE.exec(line)?.[1]).filter((text) => text !== undefined);
    const next = fences[n + 1];
    const adjacent =
      next?.lang === 'json' && section.slice(fence.close + 1, next.open).every((line) => line.trim() === '');
    const documented = inline.length > 0 ? inline.join('\n') : adjacent ? next.body.join('\n') : undefined;
    steps.push({ script: fence.body.join('\n'), line: start + 2 + fence.open, documented });
  });
  return steps;
}

/** What `…` stands for inside an array or object once parsed. */
export const ELIDED = '…';

/**
 * Parses documented output: JSON where `…` may stand for more array items or object members
 * (`[a, …]`, `{"a":1,…}`, `[…]`); inside strings it is just a character. An elided array gets a
 * trailing {@link ELIDED} item, an elided object an {@link ELIDED} key.
 */
export function parseDocumented(text: string): unknown {
  let out = '';
  const open: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '[' || char === '{') open.push(char);
    else if (char === ']' || char === '}') open.pop();
    else if (char === ELIDED) {
      const container = open.at(-1);
      if (container === undefined) throw new Error(`"…" outside an array or object: ${text}`);
      out += container === '[' ? `"${ELIDED}"` : `"${ELIDED}":0`;
      continue;
    }
    out += char;
  }
  return JSON.parse(out);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/**
 * Where `actual` does not have the documented shape: the same JSON types, the same object keys
 * (at least them where the object is elided), as many array items (at least as many where elided),
 * each item shaped like the documented one at its position. Values are not compared, except a
 * documented top-level scalar (such as "OK"), which must be equal.
 */
export function shapeMismatches(documented: unknown, actual: unknown, path = '$'): string[] {
  if (path === '$' && kind(documented) !== 'object' && kind(documented) !== 'array') {
    return documented === actual ? [] : [`$: expected ${JSON.stringify(documented)}, got ${JSON.stringify(actual)}`];
  }
  if (kind(documented) !== kind(actual)) return [`${path}: expected ${kind(documented)}, got ${kind(actual)}`];
  if (Array.isArray(documented)) {
    const items = actual as unknown[];
    const elided = documented.includes(ELIDED);
    const shown = documented.filter((item) => item !== ELIDED);
    const problems = (elided ? items.length >= shown.length : items.length === shown.length)
      ? []
      : [`${path}: expected ${elided ? 'at least ' : ''}${shown.length} items, got ${items.length}`];
    shown.forEach((item, i) => {
      if (i < items.length) problems.push(...shapeMismatches(item, items[i], `${path}[${i}]`));
    });
    return problems;
  }
  if (kind(documented) === 'object') {
    const doc = documented as Record<string, unknown>;
    const got = actual as Record<string, unknown>;
    const keys = Object.keys(doc).filter((key) => key !== ELIDED);
    const problems = keys.filter((key) => !(key in got)).map((key) => `${path}.${key}: missing`);
    if (!(ELIDED in doc)) {
      problems.push(
        ...Object.keys(got)
          .filter((key) => !(key in doc))
          .map((key) => `${path}.${key}: not documented`),
      );
    }
    for (const key of keys) if (key in got) problems.push(...shapeMismatches(doc[key], got[key], `${path}.${key}`));
    return problems;
  }
  return [];
}

/** `NAME=value   # … "field" …`: a value the reader copies from an earlier output. */
const COPIED_VALUE = /^([A-Z][A-Z0-9_]*)=(\S*)(\s+#[^"]*"([A-Za-z_]+)".*)$/;

/** The first scalar value of `field` in `value`, depth first. */
function findField(value: unknown, field: string): string | number | boolean | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Array.isArray(value) && field in value) {
    const found = (value as Record<string, unknown>)[field];
    if (['string', 'number', 'boolean'].includes(typeof found)) return found as string | number | boolean;
  }
  for (const child of Object.values(value)) {
    const found = findField(child, field);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Fills the copied values of `script` from `outputs` (oldest first), as a reader would: each
 * `NAME=example   # the "field" above` line gets `field` from the latest output that has it.
 */
export function fillCopiedValues(script: string, outputs: unknown[]): string {
  return script
    .split('\n')
    .map((line) => {
      const match = COPIED_VALUE.exec(line);
      if (!match) return line;
      const [, name, , comment, field] = match;
      for (const output of [...outputs].reverse()) {
        const value = findField(output, field);
        if (value !== undefined) return `${name}=${String(value)}${comment}`;
      }
      throw new Error(`no earlier output has a "${field}" for ${name}`);
    })
    .join('\n');
}

/** The variable assignments of a script (`NAME=...` lines), for the next steps' shell. */
export function assignmentsOf(script: string): string[] {
  return script.split('\n').filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line));
}
