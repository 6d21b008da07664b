// One line of plain text per transcript item, for `cairn show --types`.
import type { TranscriptItem } from '@cairn/protocol';
import { isoOf, oneLine } from './format.js';

type Fields = Record<string, unknown>;

// The field that says the most about an item, by the first one it has.
const HEADLINE = [
  'text',
  'prompt',
  'command',
  'file_path',
  'pattern',
  'url',
  'query',
  'content',
  'stdout',
  'stderr',
  'hook_name',
];

function detail(item: Fields): string {
  for (const key of HEADLINE) {
    const v = item[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  for (const key of ['input', 'result', 'attachment', 'record', 'todos']) {
    if (item[key] !== undefined) return JSON.stringify(item[key]);
  }
  const rest = Object.entries(item).filter(
    ([k]) =>
      !['uuid', 'type', 'at', 'turn', 'source', 'role', 'result_item', 'parent_item', 'tool_use_id'].includes(
        k,
      ),
  );
  return rest.map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
}

export function describeItem(item: TranscriptItem, width = 160): string {
  const f = item as Fields;
  const time = isoOf(item.at)?.slice(11, 19) ?? '--:--:--';
  const turn = item.turn === undefined ? '   ' : String(item.turn).padStart(3);
  const role = f.role === 'use' ? '→' : f.role === 'result' ? '←' : ' ';
  const head = `${time} ${turn} ${role} ${item.type.padEnd(18)}`;
  return `${head} ${oneLine(detail(f), Math.max(20, width - head.length - 1))}`;
}
