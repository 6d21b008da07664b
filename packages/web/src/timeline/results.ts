// What a tool call came back with, in a form a person reads: why it failed (for the call's one-line
// summary), and its result body (a file read, the matches found, the files listed, the pages a search
// found) from the item or from the record the result was read from. Pure: no DOM, no network.
import { diffCounts, diffLines, type RecordedResult } from '@cairn/transcript/items';
import { languageOfPath } from '../highlight/lang.js';
import {
  editPairs,
  field,
  firstLine,
  type Item,
  isErrorResult,
  isObject,
  isShellTool,
  num,
  obj,
  str,
  textOf,
  toolName,
} from './item.js';

type Loose = Record<string, unknown>;

// How a failed command's output opens in Claude Code ("Exit code 1") and in Codex ("Process exited with
// code 1", or "Exit code: 1").
const EXIT_LINE = /^(?:Error: )?(?:Exit code:? |Process exited with code )(-?\d+)\s*$/;

/** Why a call failed, in one line: the error message, or a command's exit code and the first line of
 * its error output. Undefined for a result that did not fail. */
export function failureReason(call: Item, result: Item | undefined): string | undefined {
  if (!result || !isErrorResult(result)) return undefined;
  const generic = obj(result, 'result');
  const text =
    str(result, 'error') ??
    str(result, 'stderr') ??
    (generic ? textOf(generic.output ?? generic.content) : undefined) ??
    str(result, 'text');
  const exit =
    num(result, 'exit_code') ?? (typeof generic?.exit_code === 'number' ? generic.exit_code : undefined);
  const lines = (text ?? '').split('\n').filter((l) => l.trim() !== '');
  const exitLine = lines[0] === undefined ? null : EXIT_LINE.exec(lines[0].trim());
  const code = exit ?? (exitLine ? Number(exitLine[1]) : undefined);
  const message = exitLine ? lines[1] : lines[0];
  const shown = message === undefined ? undefined : firstLine(message, 200);
  if (code !== undefined && (isShellTool(toolName(call)) || exitLine))
    return shown ? `exit ${code} · ${shown}` : `exit ${code}`;
  return shown ?? (code !== undefined ? `exit ${code}` : 'failed, with no reason recorded');
}

/** An Edit's removed and added lines, counted on the same diff the row draws. */
export function editCounts(call: Item): { removed: number; added: number } | undefined {
  const removed = num(call, 'removed_lines');
  const added = num(call, 'added_lines');
  if (removed !== undefined && added !== undefined) return { removed, added };
  const pairs = editPairs(obj(call, 'input'));
  if (!pairs) return undefined;
  let r = 0;
  let a = 0;
  for (const p of pairs) {
    const c = diffCounts(diffLines(p.old, p.new));
    r += c.removed;
    a += c.added;
  }
  return { removed: r, added: a };
}

/** How a result body is drawn. */
export type ResultBody =
  | {
      readonly kind: 'code';
      readonly text: string;
      readonly language: string | undefined;
      readonly firstLine?: number;
    }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'markdown'; readonly text: string }
  | { readonly kind: 'files'; readonly paths: readonly string[]; readonly more?: string }
  | {
      readonly kind: 'links';
      readonly links: readonly { title: string; url: string }[];
      readonly text?: string;
    }
  | { readonly kind: 'fields'; readonly fields: readonly { name: string; value: unknown }[] };

// Claude Code numbers the lines a Read returns: `    12→text` (a tab in older versions).
const NUMBERED = /^\s*(\d+)(?:→|\t)(.*)$/;

/** A Read's text without its line numbers, and the number of its first line. */
export function unnumbered(text: string): { text: string; firstLine: number } | undefined {
  const lines = text.replace(/\n$/, '').split('\n');
  const first = NUMBERED.exec(lines[0] ?? '');
  if (!first) return undefined;
  const out: string[] = [];
  for (const line of lines) {
    const m = NUMBERED.exec(line);
    // A line past the numbered ones (a reminder the agent appended) ends the file's text.
    if (!m) break;
    out.push(m[2]!);
  }
  return { text: out.join('\n'), firstLine: Number(first[1]) };
}

/** Whether a tool's result body lives only in the record (the item counts it), so it must be fetched. */
export function bodyInRecord(call: Item, result: Item | undefined): boolean {
  if (!result || isErrorResult(result)) return false;
  if (field(result, 'result') !== undefined || str(result, 'stdout') !== undefined) return false;
  if (str(result, 'text') !== undefined) return false;
  const name = toolName(call);
  return name !== undefined && !['Edit', 'Write', 'TodoWrite', 'Agent'].includes(name);
}

/** The body of a result the item carries, for tools whose item holds it. */
export function itemBody(call: Item, result: Item): ResultBody | undefined {
  const name = toolName(call) ?? '';
  if (isErrorResult(result)) return undefined;
  const text = str(result, 'text');
  if (text !== undefined) return name === 'WebFetch' ? { kind: 'markdown', text } : { kind: 'text', text };
  const generic = obj(result, 'result');
  if (!generic) return undefined;
  const output = generic.output ?? generic.content;
  if (typeof output === 'string') {
    const parsed = parsedObject(output);
    if (parsed) return fieldsOf(parsed);
    if (output === '') return undefined;
    const path = pathOf(call);
    const language = readsFile(name) ? languageOfPath(path) : undefined;
    return language ? { kind: 'code', text: output, language } : { kind: 'text', text: output };
  }
  if (isObject(output)) return fieldsOf(output);
  const asText = textOf(output);
  return asText ? { kind: 'text', text: asText } : undefined;
}

const readsFile = (name: string): boolean => /^(read_file|read|view|cat)$/i.test(name);

function parsedObject(text: string): Loose | undefined {
  const t = text.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(t);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const fieldsOf = (o: Loose): ResultBody => ({
  kind: 'fields',
  fields: Object.entries(o).map(([name, value]) => ({ name, value })),
});

/** The path a call works on, whichever agent spelt it. */
export function pathOf(call: Item): string | undefined {
  const direct = str(call, 'file_path') ?? str(call, 'path');
  if (direct !== undefined) return direct;
  const input = obj(call, 'input');
  const p = input?.file_path ?? input?.path ?? input?.absolute_path ?? input?.filePath;
  return typeof p === 'string' ? p : undefined;
}

/** The body of a result read back from its record, by tool. */
export function recordBody(call: Item, recorded: RecordedResult): ResultBody | undefined {
  const name = toolName(call) ?? '';
  const s = recorded.structured;
  switch (name) {
    case 'Read': {
      const file = s && isObject(s.file) ? s.file : undefined;
      const language = languageOfPath(str(call, 'file_path'));
      if (file && typeof file.content === 'string') {
        const start = typeof file.startLine === 'number' ? file.startLine : 1;
        return { kind: 'code', text: file.content, language, firstLine: start };
      }
      const plain = recorded.text === undefined ? undefined : unnumbered(recorded.text);
      if (plain) return { kind: 'code', text: plain.text, language, firstLine: plain.firstLine };
      break;
    }
    case 'Glob': {
      const names =
        s && Array.isArray(s.filenames) ? s.filenames.filter((f) => typeof f === 'string') : undefined;
      if (names)
        return {
          kind: 'files',
          paths: names,
          ...(s?.truncated === true ? { more: 'the list was cut short' } : {}),
        };
      break;
    }
    case 'Grep': {
      if (s && s.mode === 'files_with_matches' && Array.isArray(s.filenames))
        return { kind: 'files', paths: s.filenames.filter((f) => typeof f === 'string') };
      if (s && typeof s.content === 'string') return { kind: 'text', text: s.content };
      break;
    }
    case 'WebSearch': {
      const results = s && Array.isArray(s.results) ? s.results : undefined;
      if (results) return searchBody(results);
      break;
    }
    default:
      break;
  }
  if (recorded.text === undefined || recorded.text === '') return undefined;
  return { kind: 'text', text: recorded.text };
}

function searchBody(results: unknown[]): ResultBody {
  const links: { title: string; url: string }[] = [];
  const notes: string[] = [];
  for (const r of results) {
    if (typeof r === 'string') notes.push(r);
    else if (isObject(r) && Array.isArray(r.content)) {
      for (const c of r.content)
        if (isObject(c) && typeof c.url === 'string')
          links.push({ title: typeof c.title === 'string' ? c.title : c.url, url: c.url });
    }
  }
  const text = notes.join('\n\n').trim();
  return { kind: 'links', links, ...(text ? { text } : {}) };
}

/** The queries a search call asked, whichever agent spelt them (Codex: `input.query`, `input.queries`). */
export function searchQueries(call: Item): string[] {
  const direct = str(call, 'query');
  if (direct !== undefined) return [direct];
  const input = obj(call, 'input');
  if (!input) return [];
  const out = new Set<string>();
  if (typeof input.query === 'string') out.add(input.query);
  if (Array.isArray(input.queries)) for (const q of input.queries) if (typeof q === 'string') out.add(q);
  return [...out];
}

/** A web search call Codex records whole in one record: no result item will ever come. */
export const isSelfContainedSearch = (call: Item): boolean =>
  toolName(call) === 'web_search' && searchQueries(call).length > 0;
