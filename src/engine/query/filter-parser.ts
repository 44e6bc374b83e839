import { AppError } from '../../errors.js';
import { type FilterToken, filterError, lexFilter } from './filter-lexer.js';

export type FilterValue = string | number | boolean;

export type FilterOperator =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'GLOB'
  | 'NOT GLOB'
  | 'IN'
  | 'NOT IN'
  | 'CONTAINS'
  | 'NOT CONTAINS';

/** A field of the document content, or of its metadata with the `@metadata.` prefix. */
export interface FilterField {
  source: 'content' | 'metadata';
  /** Object keys and array indexes from the root, e.g. `a.b[0]` → ['a', 'b', 0]. */
  path: (string | number)[];
}

export type FilterNode =
  | { type: 'and' | 'or'; operands: FilterNode[] }
  | { type: 'condition'; field: FilterField; operator: FilterOperator; value: FilterValue | FilterValue[] };

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'glob', 'contains', 'true', 'false']);
const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
/**
 * Bounds on one filter, so that any accepted filter compiles to SQL that SQLite runs (its
 * expression depth, variable count and GLOB pattern length are limited) in bounded time and memory.
 */
export const FILTER_LIMITS = {
  /** Characters of filter text. */
  maxLength: 65_536,
  /** Conditions (`field operator value`), all AND/OR operands together; IN lists count once. */
  maxConditions: 2_000,
  /** Nested parentheses. */
  maxDepth: 64,
  /** Characters of a GLOB pattern (SQLite refuses patterns over 50,000). */
  maxPatternLength: 10_000,
} as const;
const MAX_DEPTH = FILTER_LIMITS.maxDepth;

/**
 * Parses the `@upstash/search` filter language into an AST. AND binds tighter than OR; keywords
 * are case-insensitive. Throws `invalid_filter` naming the 0-based position and what was expected.
 *
 * ```
 * filter    := and (OR and)*
 * and       := primary (AND primary)*
 * primary   := '(' filter ')' | field operator operand
 * field     := ['@metadata.'] name ('.' name | '[' integer ']')*
 * operator  := = | != | < | <= | > | >= | [NOT] GLOB | [NOT] IN | [NOT] CONTAINS
 * operand   := value | '(' value (',' value)* ')'      -- the list form for IN
 * value     := 'string' | "string" | number | true | false
 * ```
 */
export function parseFilter(input: string): FilterNode {
  if (input.length > FILTER_LIMITS.maxLength) {
    throw filterTooLarge(`the filter is ${input.length} characters; the limit is ${FILTER_LIMITS.maxLength}`);
  }
  const tokens = lexFilter(input);
  let index = 0;
  let conditions = 0;
  const peek = (): FilterToken => tokens[index];
  const next = (): FilterToken => tokens[index++];
  const isKeyword = (token: FilterToken, keyword: string) =>
    token.kind === 'word' && token.text.toLowerCase() === keyword;
  const isSymbol = (token: FilterToken, symbol: string) => token.kind === 'symbol' && token.text === symbol;
  const fail = (token: FilterToken, expected: string) =>
    filterError(token.position, `expected ${expected}, found ${describe(token)}`);

  function parseOr(depth: number): FilterNode {
    const operands = [parseAnd(depth)];
    while (isKeyword(peek(), 'or')) {
      next();
      operands.push(parseAnd(depth));
    }
    return operands.length === 1 ? operands[0] : { type: 'or', operands };
  }

  function parseAnd(depth: number): FilterNode {
    const operands = [parsePrimary(depth)];
    while (isKeyword(peek(), 'and')) {
      next();
      operands.push(parsePrimary(depth));
    }
    return operands.length === 1 ? operands[0] : { type: 'and', operands };
  }

  function parsePrimary(depth: number): FilterNode {
    const token = peek();
    if (!isSymbol(token, '(')) return parseCondition();
    if (depth >= MAX_DEPTH) throw filterError(token.position, `expected at most ${MAX_DEPTH} nested parentheses`);
    next();
    const inner = parseOr(depth + 1);
    if (!isSymbol(peek(), ')')) throw fail(peek(), `')' to close the '(' at position ${token.position}`);
    next();
    return inner;
  }

  function parseCondition(): FilterNode {
    if (++conditions > FILTER_LIMITS.maxConditions) {
      throw filterTooLarge(`the filter has more than ${FILTER_LIMITS.maxConditions} conditions`);
    }
    const field = parseField();
    const operator = parseOperator();
    if (operator === 'IN' || operator === 'NOT IN')
      return { type: 'condition', field, operator, value: parseList(operator) };
    const value = parseValue(`a value after '${operator}'`);
    if (operator.endsWith('GLOB') && typeof value !== 'string')
      throw fail(tokens[index - 1], `a string pattern after '${operator}'`);
    if (operator.endsWith('GLOB') && (value as string).length > FILTER_LIMITS.maxPatternLength) {
      throw filterError(
        tokens[index - 1].position,
        `a GLOB pattern may have at most ${FILTER_LIMITS.maxPatternLength} characters`,
      );
    }
    if (/^[<>]/.test(operator) && typeof value === 'boolean')
      throw fail(tokens[index - 1], `a number or string after '${operator}'`);
    return { type: 'condition', field, operator, value };
  }

  function parseField(): FilterField {
    const first = next();
    if (first.kind !== 'word' || KEYWORDS.has(first.text.toLowerCase())) throw fail(first, 'a field name or (');
    let source: FilterField['source'] = 'content';
    const path: (string | number)[] = [];
    if (first.text.startsWith('@')) {
      if (first.text.toLowerCase() !== '@metadata')
        throw fail(first, "a field name ('@' is only valid in '@metadata.')");
      if (!isSymbol(peek(), '.')) throw fail(peek(), "'.' and a field name after '@metadata'");
      source = 'metadata';
    } else {
      path.push(first.text);
    }
    for (;;) {
      if (isSymbol(peek(), '.')) {
        next();
        const name = next();
        if (name.kind !== 'word' || name.text.startsWith('@')) throw fail(name, "a field name after '.'");
        path.push(name.text);
      } else if (isSymbol(peek(), '[')) {
        next();
        const position = next();
        if (position.kind !== 'number' || !/^\d+$/.test(position.text))
          throw fail(position, "an array index after '['");
        if (!isSymbol(peek(), ']')) throw fail(peek(), "']' after the array index");
        next();
        path.push(position.value);
      } else {
        return { source, path };
      }
    }
  }

  function parseOperator(): FilterOperator {
    const token = next();
    if (token.kind === 'symbol' && COMPARISONS.has(token.text)) return token.text as FilterOperator;
    const negated = isKeyword(token, 'not');
    const word = negated ? next() : token;
    for (const keyword of ['glob', 'in', 'contains']) {
      if (isKeyword(word, keyword)) return `${negated ? 'NOT ' : ''}${keyword.toUpperCase()}` as FilterOperator;
    }
    throw fail(
      word,
      negated ? "GLOB, IN or CONTAINS after 'NOT'" : 'an operator (=, !=, <, <=, >, >=, GLOB, IN, CONTAINS)',
    );
  }

  function parseList(operator: string): FilterValue[] {
    if (!isSymbol(peek(), '(')) throw fail(peek(), `'(' after '${operator}'`);
    next();
    const values = [parseValue(`a value in the '${operator}' list`)];
    while (isSymbol(peek(), ',')) {
      next();
      values.push(parseValue(`a value after ','`));
    }
    if (!isSymbol(peek(), ')')) throw fail(peek(), `',' or ')' in the '${operator}' list`);
    next();
    return values;
  }

  function parseValue(expected: string): FilterValue {
    const token = next();
    if (token.kind === 'string' || token.kind === 'number') return token.value;
    if (isKeyword(token, 'true')) return true;
    if (isKeyword(token, 'false')) return false;
    throw fail(token, expected);
  }

  const root = parseOr(0);
  if (peek().kind !== 'end') throw fail(peek(), 'AND, OR or the end of the filter');
  return root;
}

function filterTooLarge(problem: string): AppError {
  return new AppError('filter_too_large', `Filter too large: ${problem}`, {
    details: [{ field: 'filter', message: problem }],
  });
}

function describe(token: FilterToken): string {
  if (token.kind === 'end') return 'the end of the filter';
  return token.kind === 'string' ? 'a string' : `'${token.text}'`;
}
