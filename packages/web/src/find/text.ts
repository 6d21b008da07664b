// What find-in-session searches: every string an item holds (its text, a call's input, its result,
// a subagent spawn's call), whether its row is folded or off screen. Ids, times and type names are left
// out: they are not text a reader looks for.
import type { Row } from '../timeline/model.js';

const NOT_TEXT = new Set([
  'uuid',
  'at',
  'turn',
  'source',
  'type',
  'role',
  'result_item',
  'parent_item',
  'tool_use_id',
]);

function collect(value: unknown, out: string[], depth: number): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number' || typeof value === 'boolean') out.push(String(value));
  else if (depth > 12 || value === null || typeof value !== 'object') return;
  else if (Array.isArray(value)) for (const v of value) collect(v, out, depth + 1);
  else
    for (const [k, v] of Object.entries(value)) {
      if (depth === 0 && NOT_TEXT.has(k)) continue;
      collect(v, out, depth + 1);
    }
}

// Rows are cached by the timeline while their items do not change, so their text is worked out once.
const cache = new WeakMap<Row, string>();

/** A row's searchable text, lower-cased. */
export function rowText(row: Row): string {
  let text = cache.get(row);
  if (text !== undefined) return text;
  const parts: string[] = [];
  if (row.kind === 'item') {
    for (const item of [row.item, row.result, row.agentCall, row.agentResult]) {
      if (item) collect(item, parts, 0);
    }
  }
  text = parts.join('\n').toLowerCase();
  cache.set(row, text);
  return text;
}

/** The indexes of the rows whose text holds `query` (ignoring case), in order. */
export function matchingRows(rows: readonly Row[], query: string): number[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return [];
  const found: number[] = [];
  for (let i = 0; i < rows.length; i++) if (rowText(rows[i]!).includes(needle)) found.push(i);
  return found;
}
