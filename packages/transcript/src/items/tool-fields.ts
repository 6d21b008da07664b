// The fields of the tools the contract types (`tool:Bash`, `tool:Read`, …), read from a call's input
// and a result's output. A call whose input lacks what its type needs falls back to the generic
// `{ input }` shape, and its result to `{ result }`, so nothing is forced into a shape it does not fit.
import type { ToolCallPayload, ToolResultPayload } from '../model.js';
import { defined, type Fields, isObject, str } from './fields.js';
import { withoutImageBytes } from './images.js';
import { diffCounts, diffLines } from './line-diff.js';
import { failureText } from './result-body.js';

const count = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
const lineCount = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : text === '' ? 0 : text.split('\n').length;

/**
 * Tool names as the classifier writes them: the agent's own spelling, reduced to the characters a
 * type segment allows. Claude Code's `Task` is the same tool it later renamed `Agent`; both are
 * written `tool:Agent` so that one selection (and `no_agent`) reaches every version.
 */
export function toolTypeName(name: string): string {
  if (name === 'Task') return 'Agent';
  const clean = name.replace(/[^A-Za-z0-9_.-]/g, '-');
  return clean === '' ? 'unknown' : clean;
}

type UseReader = (input: Fields) => Fields | undefined;

type LineChanges = { removed: number; added: number } | undefined;

/** Each edit's changes, by its input, so that a lane classified again does not diff its edits again. */
const editChangesOf = new WeakMap<Fields, LineChanges>();

/** What an edit changed, as its diff shows it: lines common to both sides are not changes. */
function editChanges(input: Fields, before: string | undefined, after: string | undefined): LineChanges {
  if (editChangesOf.has(input)) return editChangesOf.get(input);
  const changes =
    before !== undefined && after !== undefined ? diffCounts(diffLines(before, after)) : undefined;
  editChangesOf.set(input, changes);
  return changes;
}

const USE_FIELDS: Readonly<Record<string, UseReader>> = {
  Bash: (i) => {
    const command = str(i.command);
    return command === undefined ? undefined : defined({ command, description: str(i.description) });
  },
  Read: (i) => {
    const file_path = str(i.file_path);
    if (file_path === undefined) return undefined;
    return defined({ file_path, offset: count(i.offset), limit: count(i.limit) });
  },
  Write: (i) => {
    const file_path = str(i.file_path);
    return file_path === undefined ? undefined : defined({ file_path, lines: lineCount(str(i.content)) });
  },
  Edit: (i) => {
    const file_path = str(i.file_path);
    if (file_path === undefined) return undefined;
    const before = str(i.old_string);
    const after = str(i.new_string);
    const changed = editChanges(i, before, after);
    return defined({
      file_path,
      old_lines: lineCount(before),
      new_lines: lineCount(after),
      removed_lines: changed?.removed,
      added_lines: changed?.added,
    });
  },
  Grep: (i) => {
    const pattern = str(i.pattern);
    return pattern === undefined ? undefined : defined({ pattern, path: str(i.path) });
  },
  Glob: (i) => {
    const pattern = str(i.pattern);
    return pattern === undefined ? undefined : defined({ pattern, path: str(i.path) });
  },
  WebFetch: (i) => {
    const url = str(i.url);
    return url === undefined ? undefined : defined({ url, prompt: str(i.prompt) });
  },
  WebSearch: (i) => {
    const query = str(i.query);
    return query === undefined ? undefined : { query };
  },
  Agent: (i) => {
    const prompt = str(i.prompt);
    if (prompt === undefined) return undefined;
    return defined({
      prompt,
      name: str(i.name),
      subagent_type: str(i.subagent_type),
      description: str(i.description),
    });
  },
  SendMessage: (i) => {
    const to = str(i.to) ?? str(i.recipient);
    return to === undefined ? undefined : defined({ to, summary: str(i.summary) });
  },
  Monitor: (i) => {
    const description = str(i.description);
    if (description === undefined) return undefined;
    return defined({
      description,
      command: str(i.command),
      persistent: typeof i.persistent === 'boolean' ? i.persistent : undefined,
      timeout_ms: count(i.timeout_ms) ?? count(i.timeout),
    });
  },
  Skill: (i) => {
    const skill = str(i.skill) ?? str(i.command);
    return skill === undefined ? undefined : defined({ skill, args: str(i.args) });
  },
  TodoWrite: (i) => {
    if (!Array.isArray(i.todos)) return undefined;
    const todos: { content: string; status: string }[] = [];
    for (const t of i.todos) {
      const content = isObject(t) ? str(t.content) : undefined;
      const status = isObject(t) ? str(t.status) : undefined;
      if (content === undefined || status === undefined) return undefined;
      todos.push({ content, status });
    }
    return { todos };
  },
  TaskStop: (i) => {
    const task_id = str(i.task_id) ?? str(i.shell_id);
    return task_id === undefined ? undefined : { task_id };
  },
  CronCreate: (i) => {
    const cron = str(i.cron) ?? str(i.schedule);
    return cron === undefined ? undefined : defined({ cron, prompt: str(i.prompt) });
  },
};

/** A call's fields: the typed ones for a typed tool whose input has them, else `{ input }`. */
export function useFields(typeName: string, call: ToolCallPayload): { typed: boolean; fields: Fields } {
  const input = call.input;
  const reader = USE_FIELDS[typeName];
  if (reader && isObject(input)) {
    const fields = reader(input);
    if (fields) return { typed: true, fields };
  }
  return { typed: false, fields: { input: isObject(input) ? input : { input: input ?? null } } };
}

/** A result's output as text, when it is text. */
export const outputText = (r: ToolResultPayload): string | undefined => str(r.output);

// Claude Code numbers the lines a Read returns (`    12→text`).
const NUMBERED_LINE = /^\s*\d+(?:→|\t)/;
const FOUND = /^Found (\d+) /;

type ResultReader = (r: ToolResultPayload, text: string | undefined) => Fields;

const ok = (r: ToolResultPayload): Fields => ({ ok: r.isError !== true });

const RESULT_FIELDS: Readonly<Record<string, ResultReader>> = {
  Bash: (r, text) =>
    r.isError === true ? defined({ stderr: text }) : defined({ stdout: text, interrupted: interrupted(r) }),
  Read: (r, text) => {
    if (r.isError === true || text === undefined) return {};
    let lines = 0;
    for (const line of text.split('\n')) if (NUMBERED_LINE.test(line)) lines++;
    return { lines };
  },
  Write: ok,
  Edit: ok,
  Grep: (r, text) => defined({ matches: r.isError === true ? undefined : grepMatches(text) }),
  Glob: (r, text) => {
    if (r.isError === true || text === undefined) return {};
    const found = foundCount(text);
    if (found !== undefined) return { matches: found };
    if (text.trim() === '' || text.startsWith('No files found')) return { matches: 0 };
    return { matches: text.trim().split('\n').length };
  },
  WebFetch: (_r, text) => defined({ text }),
  WebSearch: () => ({}),
  Agent: (r) => defined({ agent_id: str(r.agentId), status: agentStatus(r) }),
  SendMessage: () => ({}),
  Monitor: () => ({}),
  Skill: (r) => defined({ status: r.isError === true ? 'failed' : undefined }),
  TodoWrite: ok,
  TaskStop: ok,
  CronCreate: () => ({}),
};

/** A result's fields: typed when its call was typed, else the generic `{ result }`. A call the agent
 * recorded as failed says so in `ok` where the type has one, else in `is_error`. */
export function resultFields(typeName: string, typedCall: boolean, r: ToolResultPayload): Fields {
  const reader = RESULT_FIELDS[typeName];
  if (typedCall && reader) {
    const fields = reader(r, outputText(r));
    // A failure carries its reason, so a reader sees why without opening the record (a shell call's
    // is already its stderr).
    const error = r.isError === true && !('stderr' in fields) ? failureText(outputText(r)) : undefined;
    if (error !== undefined) fields.error = error;
    return r.isError === true && !('ok' in fields) ? { is_error: true, ...fields } : fields;
  }
  const result = defined({
    // An image's bytes stay in the record; the item keeps a note of it.
    output: withoutImageBytes(r.output) ?? null,
    exit_code: r.exitCode,
    status: r.status,
    duration_ms: r.durationMs,
  });
  return r.isError === true ? { is_error: true, result } : { result };
}

// A Grep's content lines: `12:text` or `path:12:text` match; `12-text` lines are context around them.
const MATCH_LINE = /^(?:.*?:)?\d+:/;

/** How many matches a Grep found: the files it names ("Found 3 files"), else its matching lines. */
function grepMatches(text: string | undefined): number | undefined {
  const found = foundCount(text);
  if (found !== undefined || text === undefined) return found;
  const t = text.trim();
  if (t === '' || /^No (?:matches|files) found/.test(t)) return 0;
  const lines = t.split('\n').filter((l) => l !== '--');
  const numbered = lines.filter((l) => MATCH_LINE.test(l)).length;
  return numbered > 0 ? numbered : lines.length;
}

function foundCount(text: string | undefined): number | undefined {
  const m = text === undefined ? null : FOUND.exec(text);
  return m ? Number(m[1]) : undefined;
}

function interrupted(r: ToolResultPayload): boolean | undefined {
  return typeof r.interrupted === 'boolean' ? r.interrupted : undefined;
}

// What Claude Code answers at once for an agent started in the background; the real answer comes later.
const ASYNC_LAUNCH = /^Async agent launched/;

/** Whether an agent call's result only says the agent was started in the background. */
export const isAsyncLaunch = (r: ToolResultPayload): boolean => ASYNC_LAUNCH.test(outputText(r) ?? '');

/** How an agent spawn ended, as far as its result tells. */
export function agentStatus(r: ToolResultPayload): string {
  if (typeof r.status === 'string' && r.status !== '') return r.status;
  if (isAsyncLaunch(r)) return 'async_launched';
  return r.isError === true ? 'failed' : 'completed';
}
