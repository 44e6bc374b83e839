import { AppError } from '../../errors.js';

export type FilterToken =
  | { kind: 'word'; text: string; position: number }
  | { kind: 'string'; value: string; position: number }
  | { kind: 'number'; value: number; text: string; position: number }
  | { kind: 'symbol'; text: string; position: number }
  | { kind: 'end'; position: number };

const WORD = /[@A-Za-z_$][A-Za-z0-9_$-]*/y;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const SYMBOL = /!=|<=|>=|[=<>(),.[\]]/y;

/** The `invalid_filter` error for the 0-based `position` of the filter text. */
export function filterError(position: number, problem: string): AppError {
  return new AppError('invalid_filter', `Invalid filter at position ${position}: ${problem}`, {
    details: [{ field: 'filter', message: problem }],
  });
}

/**
 * Splits a filter into tokens. Words cover field names and keywords (resolved by the parser,
 * case-insensitively); strings are '…' or "…" with the quote doubled to escape it.
 */
export function lexFilter(input: string): FilterToken[] {
  const tokens: FilterToken[] = [];
  let position = 0;
  while (position < input.length) {
    const char = input[position];
    if (/\s/.test(char)) {
      position++;
    } else if (char === "'" || char === '"') {
      const { value, end } = readString(input, position);
      tokens.push({ kind: 'string', value, position });
      position = end;
    } else if (matchAt(NUMBER, input, position) && !/[A-Za-z_$]/.test(input[NUMBER.lastIndex] ?? '')) {
      const text = input.slice(position, NUMBER.lastIndex);
      const value = Number(text);
      if (!Number.isFinite(value)) throw filterError(position, `the number ${text.slice(0, 32)} is out of range`);
      tokens.push({ kind: 'number', value, text, position });
      position = NUMBER.lastIndex;
    } else if (matchAt(WORD, input, position)) {
      tokens.push({ kind: 'word', text: input.slice(position, WORD.lastIndex), position });
      position = WORD.lastIndex;
    } else if (matchAt(SYMBOL, input, position)) {
      tokens.push({ kind: 'symbol', text: input.slice(position, SYMBOL.lastIndex), position });
      position = SYMBOL.lastIndex;
    } else {
      throw filterError(position, `expected a field, value, operator or parenthesis, found '${char}'`);
    }
  }
  tokens.push({ kind: 'end', position: input.length });
  return tokens;
}

function matchAt(pattern: RegExp, input: string, position: number): boolean {
  pattern.lastIndex = position;
  return pattern.test(input);
}

function readString(input: string, start: number): { value: string; end: number } {
  const quote = input[start];
  let value = '';
  let position = start + 1;
  while (position < input.length) {
    const next = input.indexOf(quote, position);
    if (next === -1) break;
    value += input.slice(position, next);
    if (input[next + 1] !== quote) return { value, end: next + 1 };
    value += quote; // doubled quote = one literal quote
    position = next + 2;
  }
  throw filterError(start, `expected a closing ${quote} for the string that starts here`);
}
