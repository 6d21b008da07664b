// Long sessions made from corpus sessions by repeating their records, each copy's ids its own: for
// the tests of reading in parts, whose cuts must cross calls, results and compactions.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corpusPath } from '../corpus.js';

const CLAUDE = 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const CODEX =
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

/**
 * A long Claude Code session: the corpus's session with a compaction and three subagents, its main
 * file `copies` times over (so as many compactions), beside its subagents' files. Answers its path.
 */
export function longClaudeSession(home: string, copies: number): string {
  const folder = join(home, '.claude', 'projects', '-work-long');
  const main = join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl');
  mkdirSync(join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents'), { recursive: true });
  const one = readFileSync(corpusPath(`${CLAUDE}.jsonl`), 'utf8');
  const copy = (n: number) =>
    n === 0 ? one : one.replaceAll('"msg_', `"msg_${n}_`).replaceAll('"uuid":"', `"uuid":"${n}-`);
  let text = '';
  for (let n = 0; n < copies; n++) text += copy(n);
  writeFileSync(main, text);
  for (const name of readdirSync(corpusPath(CLAUDE, 'subagents')))
    copyFileSync(
      corpusPath(CLAUDE, 'subagents', name),
      join(folder, 'fa812bfe-b295-4cca-9c2f-fdf01028cb46', 'subagents', name),
    );
  return main;
}

/** A long Codex rollout: the corpus's largest (it holds a compaction, and is about 1 MB), its
 * records after the first `copies` times over, each copy's call ids its own. Answers its path. */
export function longRollout(home: string, copies = 3): string {
  const path = join(home, '.codex', 'sessions', 'long', CODEX.split('/').pop()!);
  mkdirSync(dirname(path), { recursive: true });
  const [meta, ...body] = readFileSync(corpusPath(CODEX), 'utf8').split('\n').filter(Boolean);
  const block = `${body.join('\n')}\n`;
  let text = `${meta}\n`;
  for (let n = 1; n <= copies; n++) text += block.replaceAll(/"call_(?!id")/g, `"call_${n}_`);
  writeFileSync(path, text);
  return path;
}

/** A file of `head` once, then `body` `copies` times over, each copy's text as `copy` makes it. */
function repeated(
  path: string,
  head: string,
  body: string,
  copies: number,
  copy: (text: string, n: number) => string,
) {
  mkdirSync(dirname(path), { recursive: true });
  let text = head;
  for (let n = 0; n < copies; n++) text += copy(body, n);
  writeFileSync(path, text);
  return path;
}

/** The corpus file's lines, each with its line break. */
const linesOf = (...path: string[]) => readFileSync(corpusPath(...path), 'utf8').split(/(?<=\n)/);

/**
 * A long pi session: the corpus's sample, its header once and its turns (less its compactions) about
 * 3 MB over, each copy's entry ids its own and its first entry the child of the last copy's last.
 * Answers its path.
 */
export function longPiSession(home: string): string {
  const [header, ...entries] = linesOf('more', 'pi', 'small.jsonl');
  const body = entries.filter((l) => !l.includes('"type":"compaction"')).join('');
  const last = /"id":"([^"]+)"/.exec(body.trimEnd().split('\n').at(-1)!)![1];
  const path = join(home, '.pi', 'agent', 'sessions', '--w-long--', '2026-05-12T01-02-27-657Z_long.jsonl');
  return repeated(path, header!, body, Math.ceil((3 << 20) / body.length), (text, n) =>
    text
      .replaceAll(/"(id|parentId)":"([0-9a-f]{8})"/g, `"$1":"c${n}-$2"`)
      .replace('"parentId":null', n === 0 ? '"parentId":null' : `"parentId":"c${n - 1}-${last}"`),
  );
}

/** A long Qwen Code session: the corpus's first chat about 3 MB over, each copy's record uuids and
 * call ids its own. Answers its path. */
export function longQwenSession(home: string): string {
  const name = '019f0000-0000-7000-8000-000000000001.jsonl';
  const body = linesOf('more', 'qwen', name).join('');
  const path = join(home, '.qwen', 'projects', '-w-long', 'chats', name);
  return repeated(path, '', body, Math.ceil((3 << 20) / body.length), (text, n) =>
    text
      .replaceAll(
        /"(uuid|parentUuid)":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4})-8000-/g,
        (_, key, start) => `"${key}":"${start}-8${n.toString(16).padStart(3, '0')}-`,
      )
      .replaceAll('"synthetic-call-', `"c${n}-synthetic-call-`),
  );
}

/**
 * A long Copilot CLI session: the corpus's small one, its first events (the start, the model, the
 * system message) once and its first turn about 3 MB over, each copy's event and call ids its own.
 * Answers its events file's path.
 */
export function longCopilotSession(home: string): string {
  const lines = linesOf('more', 'copilot', 'small.jsonl');
  const turn = lines.findIndex((l) => l.includes('"type":"user.message"'));
  const end = lines.findIndex((l) => l.includes('"type":"assistant.turn_end"'));
  const body = lines.slice(turn, end + 1).join('');
  const path = join(home, '.copilot', 'session-state', 'long', 'events.jsonl');
  return repeated(path, lines.slice(0, turn).join(''), body, Math.ceil((3 << 20) / body.length), (text, n) =>
    text.replaceAll(/"(id|parentId|toolCallId|messageId)":"(e\d+|call-\d+|m-\d+)"/g, `"$1":"c${n}-$2"`),
  );
}

/** A long Gemini CLI session of the JSONL kind: the corpus's sample, its metadata once and its
 * messages about 3 MB over, each copy's message and call ids its own. Answers its path. */
export function longGeminiSession(home: string): string {
  const [meta, ...records] = linesOf('more', 'gemini', 'jsonl_v040.jsonl');
  const body = records.join('');
  const path = join(home, '.gemini', 'tmp', 'long', 'chats', 'session-2026-04-29T21-39-long.jsonl');
  return repeated(path, meta!, body, Math.ceil((3 << 20) / body.length), (text, n) =>
    text.replaceAll('"id":"', `"id":"c${n}-`),
  );
}
