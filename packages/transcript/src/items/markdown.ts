// A dump file as a Markdown document a person or an agent can read directly: each item under its
// type and time, each call followed by its result. Transcript text is untrusted, so every piece of
// it sits in a code block or code span fenced longer than any backtick run it holds: nothing in it
// can close its block, start a heading or become HTML.
import type { SessionDumpFile, TranscriptItem } from '@cairn/protocol';

type Fields = Record<string, unknown>;

/** Fields every item has, shown in its heading rather than its body. */
const HEAD_FIELDS = new Set(['uuid', 'type', 'at', 'turn', 'source', 'role', 'result_item', 'parent_item']);

/** Text fields shown as blocks, in this order, before the short fields. */
const BLOCK_FIELDS = [
  'text',
  'prompt',
  'command',
  'content',
  'stdout',
  'stderr',
  'input',
  'result',
  'record',
  'attachment',
];

/** The longest run of `ch` in `text`. */
function longestRun(text: string, ch: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** A fenced code block that no content can close: its fence is longer than any backtick run inside. */
export function fenced(text: string, info = ''): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

/** A one-line code span that no content can close; line breaks and control characters become spaces. */
export function codeSpan(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
  if (flat.trim() === '') return '(empty)';
  const fence = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A code span fit for a table cell, where a bare `|` would end the cell even inside code. */
const cell = (text: string | undefined): string =>
  text === undefined ? '' : codeSpan(text).replace(/\|/g, '\\|');

const time = (at: number): string => {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? 'unknown time' : `${d.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
};

const short = (uuid: string): string => codeSpan(uuid);

function heading(level: string, item: Fields, note = ''): string {
  const role = item.role === 'use' ? ' call' : item.role === 'result' ? ' result' : '';
  const turn = typeof item.turn === 'number' ? ` · turn ${item.turn}` : '';
  return `${level} ${codeSpan(String(item.type))}${role} · ${time(Number(item.at))}${turn} · ${short(String(item.uuid))}${note}`;
}

function body(item: Fields): string[] {
  const out: string[] = [];
  const keys = Object.keys(item).filter((k) => !HEAD_FIELDS.has(k));
  const blocks = BLOCK_FIELDS.filter((k) => keys.includes(k));
  const rest = keys.filter((k) => !BLOCK_FIELDS.includes(k));
  const bullets: string[] = [];
  for (const k of rest) {
    const v = item[k];
    if (typeof v === 'string' && !v.includes('\n') && v.length <= 200) bullets.push(`- ${k}: ${codeSpan(v)}`);
    else if (typeof v === 'number' || typeof v === 'boolean') bullets.push(`- ${k}: ${codeSpan(String(v))}`);
    else blocks.push(k);
  }
  if (bullets.length > 0) out.push(bullets.join('\n'));
  for (const k of blocks) {
    const v = item[k];
    const text = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
    if (k !== 'text') out.push(`${k}:`);
    out.push(fenced(text, typeof v === 'string' ? 'text' : 'json'));
  }
  return out;
}

/** The dump file as Markdown. */
export function renderDumpMarkdown(file: SessionDumpFile): string {
  return `${[...dumpMarkdownBlocks(file)].join('\n\n')}\n`;
}

/**
 * The Markdown dump's blocks in order, to be joined by a blank line and ended by a newline: what
 * renderDumpMarkdown joins, for a writer that puts a long dump out a block at a time.
 */
export function* dumpMarkdownBlocks(file: SessionDumpFile): Generator<string> {
  yield* markdownHeadBlocks(file, file.items.length);
  const byUuid = new Map<string, TranscriptItem>();
  for (const item of file.items) byUuid.set(item.uuid, item);
  const drawn = new Set<string>();
  for (const item of file.items) {
    if (drawn.has(item.uuid)) continue;
    drawn.add(item.uuid);
    const resultId = (item as Fields).result_item;
    const result = typeof resultId === 'string' ? byUuid.get(resultId) : undefined;
    if (result && (item as Fields).role !== 'result') drawn.add(result.uuid);
    yield* markdownItemBlocks(item, result);
  }
  yield* markdownIdsBlocks(file.ids);
}

/** The title, the facts (`items` of them) and the heading the items go under. */
export function* markdownHeadBlocks(
  file: Omit<SessionDumpFile, 'items' | 'ids'>,
  items: number,
): Generator<string> {
  const subject = file.agent_id === undefined ? '' : ` / agent ${codeSpan(file.agent_id)}`;
  yield `# Dump of ${file.agent === undefined ? '' : `${file.agent} `}session ${codeSpan(file.sid)}${subject}`;
  const facts = [
    `- written: ${time(file.written_at)}`,
    `- types: ${file.types.map(codeSpan).join(', ')}`,
    `- items: ${items}`,
  ];
  const since = file.since_at !== undefined ? time(file.since_at) : file.since_uuid;
  const until = file.until_at !== undefined ? time(file.until_at) : file.until_uuid;
  if (since !== undefined || until !== undefined)
    facts.push(
      `- range: ${since === undefined ? 'start' : codeSpan(since)} to ${until === undefined ? 'end' : codeSpan(until)}`,
    );
  yield facts.join('\n');
  yield '## Items';
}

/**
 * One item not yet drawn, and after a call the result the dump holds for it (which is then not
 * drawn again where it stands).
 */
export function* markdownItemBlocks(
  item: TranscriptItem,
  result: TranscriptItem | undefined,
): Generator<string> {
  const f = item as Fields;
  if (f.role === 'result') {
    // Its call is not in the dump (before the range, or not selected): say which call it answers.
    yield heading('###', f, ` · answers ${short(String(f.parent_item))}`);
    yield* body(f);
    return;
  }
  const pending = f.role === 'use' && result === undefined ? ' · no result in this dump' : '';
  yield heading('###', f, pending);
  yield* body(f);
  if (result) {
    yield heading('####', result as Fields);
    yield* body(result as Fields);
  }
}

/** The ids ledger as a table, when it has any. */
export function* markdownIdsBlocks(ids: SessionDumpFile['ids']): Generator<string> {
  if (ids.length === 0) return;
  yield '## Ids';
  const rows = ['| kind | id | label | status | duration |', '| --- | --- | --- | --- | --- |'];
  for (const e of ids) {
    const d = e.duration_ms === undefined ? '' : `${(e.duration_ms / 1000).toFixed(1)} s`;
    rows.push(`| ${e.kind} | ${cell(e.id)} | ${cell(e.label)} | ${cell(e.status)} | ${d} |`);
  }
  yield rows.join('\n');
}
