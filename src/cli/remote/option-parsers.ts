import { InvalidArgumentError } from 'commander';

/** A positive integer option value; anything else is a usage error (exit 2). */
export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('expected a positive integer');
  return number;
}

/** `--semantic-weight`: a number from 0 to 1. */
export function semanticWeight(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0 || number > 1) {
    throw new InvalidArgumentError('expected a number from 0 (full text only) to 1 (semantic only)');
  }
  return number;
}

/** `--content-columns a,b`: the column names, trimmed. */
export function columnList(value: string): string[] {
  return value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}
