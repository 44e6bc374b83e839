import type { FilterField, FilterNode, FilterValue } from '../query/filter-parser.js';

/** A WHERE-clause fragment with positional parameters. */
export interface SqlFragment {
  sql: string;
  params: (string | number)[];
}

/**
 * Compiles a filter AST to SQL over the JSONB `content` / `metadata` columns of the documents
 * table (alias `alias`). Every condition checks the JSON type first, so `price > 10` never matches
 * the string "20" and booleans only equal booleans. Conditions evaluate to 0/1, never NULL, so a
 * negated operator (`!=`, `NOT IN`, `NOT GLOB`, `NOT CONTAINS`) matches documents lacking the field.
 *
 * Parameters are pushed while the SQL text is built left to right (template literals evaluate in
 * order), which keeps the `?` placeholders and `params` aligned.
 */
export function compileFilter(node: FilterNode, alias: string): SqlFragment {
  const params: (string | number)[] = [];
  const param = (value: string | number): string => {
    params.push(value);
    return '?';
  };

  function visit(current: FilterNode): string {
    if (current.type !== 'condition') {
      return balanced(current.operands.map(visit), current.type === 'and' ? ' AND ' : ' OR ');
    }
    const column = `${alias}.${current.field.source}`;
    const path = jsonPath(current.field);
    const values = Array.isArray(current.value) ? current.value : [current.value];
    switch (current.operator) {
      case '=':
        return equals(column, path, values[0]);
      case '!=':
        return `NOT ${equals(column, path, values[0])}`;
      case 'IN':
        return membership(column, path, values);
      case 'NOT IN':
        return `NOT ${membership(column, path, values)}`;
      case 'GLOB':
        return compare(column, path, 'GLOB', values[0]);
      case 'NOT GLOB':
        return `NOT ${compare(column, path, 'GLOB', values[0])}`;
      case 'CONTAINS':
        return contains(column, path, values[0]);
      case 'NOT CONTAINS':
        return `NOT ${contains(column, path, values[0])}`;
      default:
        return compare(column, path, current.operator, values[0]);
    }
  }

  /** `(type matches AND value OP ?)`; the parser guarantees non-boolean values for ordering and GLOB. */
  function compare(column: string, path: string, operator: string, value: FilterValue): string {
    const typeCheck =
      typeof value === 'number'
        ? `coalesce(json_type(${column}, ${param(path)}), '') IN ('integer', 'real')`
        : `json_type(${column}, ${param(path)}) IS 'text'`;
    return `(${typeCheck} AND json_extract(${column}, ${param(path)}) ${operator} ${param(value as string | number)})`;
  }

  function equals(column: string, path: string, value: FilterValue): string {
    if (typeof value === 'boolean') return `(json_type(${column}, ${param(path)}) IS '${value}')`;
    return compare(column, path, '=', value);
  }

  /**
   * The value equals one of `values` (same JSON type): one `IN (SELECT value FROM json_each(?))` per
   * type, whatever the length of the list, so long lists neither nest expressions nor use a
   * parameter per value.
   */
  function membership(column: string, path: string, values: FilterValue[]): string {
    const strings = values.filter((value) => typeof value === 'string');
    const numbers = values.filter((value) => typeof value === 'number');
    const parts: string[] = [];
    if (strings.length > 0) {
      parts.push(
        `(json_type(${column}, ${param(path)}) IS 'text' AND json_extract(${column}, ${param(path)}) IN (SELECT value FROM json_each(${param(JSON.stringify(strings))})))`,
      );
    }
    if (numbers.length > 0) {
      parts.push(
        `(coalesce(json_type(${column}, ${param(path)}), '') IN ('integer', 'real') AND json_extract(${column}, ${param(path)}) IN (SELECT value FROM json_each(${param(JSON.stringify(numbers))})))`,
      );
    }
    for (const value of new Set(values.filter((value) => typeof value === 'boolean'))) {
      parts.push(equals(column, path, value));
    }
    return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
  }

  /** Arrays: element membership (same JSON type); strings: substring. */
  function contains(column: string, path: string, value: FilterValue): string {
    let sql = `(CASE json_type(${column}, ${param(path)}) WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each(${column}, ${param(path)}) WHERE `;
    if (typeof value === 'boolean') sql += `type = '${value}'`;
    else sql += `type IN (${typeof value === 'number' ? "'integer', 'real'" : "'text'"}) AND value = ${param(value)}`;
    sql += `) WHEN 'text' THEN `;
    sql += typeof value === 'string' ? `instr(json_extract(${column}, ${param(path)}), ${param(value)}) > 0` : '0';
    return `${sql} ELSE 0 END)`;
  }

  return { sql: visit(node), params };
}

/**
 * `parts` joined by `operator` as a balanced tree of parentheses: SQLite parses a flat chain of
 * n ANDs as an expression n deep and refuses depth 1000, while a balanced tree is log2(n) deep.
 * The order of the parts (and so of their parameters) is kept.
 */
function balanced(parts: string[], operator: string): string {
  if (parts.length === 1) return parts[0];
  const middle = parts.length >> 1;
  return `(${balanced(parts.slice(0, middle), operator)}${operator}${balanced(parts.slice(middle), operator)})`;
}

/** SQLite JSON path with every key quoted (`$."a"."b"[0]`); the lexer keeps quotes out of keys. */
function jsonPath(field: FilterField): string {
  return `$${field.path.map((part) => (typeof part === 'number' ? `[${part}]` : `."${part}"`)).join('')}`;
}
