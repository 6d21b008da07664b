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

// The same for a tool call the classifier leaves as its input, by the names the agents give the
// field: a command, a pattern, a file (OpenCode's `filePath`, Gemini CLI's `absolute_path`, pi's and
// Copilot CLI's `path`), a URL, a query.
const INPUT_HEADLINE = [
  'command',
  'pattern',
  'file_path',
  'filePath',
  'absolute_path',
  'path',
  'url',
  'query',
  'prompt',
];

function inputHeadline(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  for (const key of INPUT_HEADLINE) {
    const v = (input as Fields)[key];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return undefined;
}

function detail(item: Fields): string {
  // A prompt's images as their notes (`[image: image/png, 34 KB]`), after its text.
  const images = Array.isArray(item.images) ? item.images.filter((n) => typeof n === 'string') : [];
  const notes = images.length > 0 ? ` ${images.join(' ')}` : '';
  for (const key of HEADLINE) {
    const v = item[key];
    if (typeof v === 'string' && v.trim() !== '') return `${v}${notes}`;
  }
  if (notes !== '') return notes.trim();
  const fromInput = inputHeadline(item.input);
  if (fromInput !== undefined) return fromInput;
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
