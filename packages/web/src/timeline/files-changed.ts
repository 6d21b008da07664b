// The files a session changed, gathered from its edit calls over every lane: Claude Code's Edit,
// MultiEdit and Write, Codex's apply_patch, Gemini CLI's replace and write_file, and any agent's
// lower-case edit and write. Each file keeps its changes in the order they were made, and each change
// points back at its call. What an item carries of the change is read here; a change whose bodies are
// only in the agent's record (Claude Code keeps just the counts on the item) says so, for the view to
// fetch.

import type { ItemRef } from '../route.js';
import { type DiffLine, diffCounts, diffLines, parsePatch } from './diff.js';
import { editPairs, field, type Item, isErrorResult, isUse, obj, patchText, str, toolName } from './item.js';
import { MAIN_LANE } from './model.js';
import { pathOf } from './results.js';

export type ChangeKind = 'edit' | 'write' | 'add' | 'update' | 'delete' | 'move';

export interface FileChange {
  /** The lane and index of the call, for linking to it. */
  readonly lane: string;
  readonly index: number;
  readonly call: Item;
  /** The pointer that lands the timeline on the call. */
  readonly ref: ItemRef;
  readonly tool: string;
  readonly kind: ChangeKind;
  /** The call's result said it failed: the file may not hold this change. */
  readonly failed: boolean;
  /** The change's lines, when the item holds them; undefined when they are in the record only. */
  readonly lines: readonly DiffLine[] | undefined;
  /** Lines removed and added, from the lines or from the counts the item keeps. */
  readonly removed: number | undefined;
  readonly added: number | undefined;
}

export interface ChangedFile {
  readonly path: string;
  readonly changes: readonly FileChange[];
}

const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'replace', 'edit', 'multiedit', 'str_replace']);
const WRITE_TOOLS = new Set(['Write', 'write_file', 'write', 'create']);

/** Whether a call changes files: an edit or write tool, or a call that carries an apply_patch patch. */
export const isFileChange = (item: Item): boolean => {
  if (!isUse(item)) return false;
  const name = toolName(item);
  if (name === undefined) return false;
  return EDIT_TOOLS.has(name) || WRITE_TOOLS.has(name) || patchText(item) !== undefined;
};

/** The lines of text written whole, as added lines, counted as the library counts a Write's lines
 * (a final newline starts one more, empty, line), so the diff and the count agree. */
const writtenLines = (content: string): DiffLine[] =>
  content === '' ? [] : content.split('\n').map((text) => ({ op: '+', text }));

const counted = (lines: readonly DiffLine[] | undefined, call: Item) => {
  if (lines) return diffCounts(lines);
  const removed = field(call, 'removed_lines');
  const added = field(call, 'added_lines') ?? field(call, 'lines');
  return {
    removed: typeof removed === 'number' ? removed : undefined,
    added: typeof added === 'number' ? added : undefined,
  };
};

/** The lines an edit's before/after pairs make, or a write's content, from a call's input. */
export function linesFromInput(
  tool: string,
  input: Record<string, unknown> | undefined,
): DiffLine[] | undefined {
  if (!input) return undefined;
  if (WRITE_TOOLS.has(tool))
    return typeof input.content === 'string' ? writtenLines(input.content) : undefined;
  return editPairs(input)?.flatMap((p) => diffLines(p.old, p.new));
}

/** The change's lines when the item itself carries them (Gemini CLI's calls keep their input). */
export const carriedLines = (call: Item): DiffLine[] | undefined =>
  linesFromInput(toolName(call) ?? '', obj(call, 'input'));

/**
 * Every file the lanes' calls changed, in the order each was first changed, with its changes in the
 * order they were made. A patch that touches several files adds a change to each.
 */
export function filesChanged(
  lanes: Iterable<readonly [string, readonly Item[]]>,
  mainLane = MAIN_LANE,
): ChangedFile[] {
  const files = new Map<string, FileChange[]>();
  const add = (path: string, change: FileChange) => {
    let list = files.get(path);
    if (!list) {
      list = [];
      files.set(path, list);
    }
    list.push(change);
  };
  for (const [lane, items] of lanes) {
    // A call's result names it by tool_use_id; only a recorded failure matters here.
    const failedIds = new Set<string>();
    for (const item of items) {
      const id = str(item, 'tool_use_id');
      if (id !== undefined && !isUse(item) && item.type.startsWith('tool:') && isErrorResult(item))
        failedIds.add(id);
    }
    // Items of one record share its uuid: the pointer counts the call among those of its type.
    const seen = new Map<string, number>();
    items.forEach((call, index) => {
      const same = `${call.uuid}|${call.type}`;
      const nth = seen.get(same) ?? 0;
      seen.set(same, nth + 1);
      if (!isFileChange(call)) return;
      const ref: ItemRef = { uuid: call.uuid, type: call.type };
      if (lane !== mainLane) ref.lane = lane;
      if (nth > 0) ref.nth = nth;
      const tool = toolName(call)!;
      const id = str(call, 'tool_use_id');
      const failed = id !== undefined && failedIds.has(id);
      const patch = patchText(call);
      if (patch !== undefined) {
        for (const f of parsePatch(patch)) {
          const lines = f.lines;
          const { removed, added } = diffCounts(lines);
          // A move is listed under where the file went.
          const path = f.path.split(' → ').at(-1)!;
          add(path, {
            lane,
            index,
            call,
            ref,
            tool,
            kind: f.action as ChangeKind,
            failed,
            lines,
            removed,
            added,
          });
        }
        return;
      }
      const path = pathOf(call);
      if (path === undefined) return;
      const lines = carriedLines(call);
      const kind: ChangeKind = WRITE_TOOLS.has(tool) ? 'write' : 'edit';
      add(path, { lane, index, call, ref, tool, kind, failed, lines, ...counted(lines, call) });
    });
  }
  return [...files].map(([path, changes]) => ({ path, changes }));
}

/** A line of the combined diff: a diff line, or the heading that starts one change's lines. */
export type CombinedLine = DiffLine | { readonly op: '…'; readonly text: string };

/**
 * One diff for a whole file: each change's lines in order under a heading that names it. `linesOf`
 * gives a change's lines (from the item, or from its record once read); a change without them yet is
 * named and left out. Failed changes are named as failed and their lines left out, since the file
 * never held them.
 */
export function combinedDiff(
  file: ChangedFile,
  linesOf: (change: FileChange) => readonly CombinedLine[] | undefined,
  label: (change: FileChange, n: number) => string,
): CombinedLine[] {
  const out: CombinedLine[] = [];
  file.changes.forEach((change, i) => {
    const lines = linesOf(change);
    const head = label(change, i + 1);
    if (change.failed) {
      out.push({ op: '…', text: `${head} · failed, not applied` });
      return;
    }
    if (!lines) {
      out.push({ op: '…', text: `${head} · lines not read yet` });
      return;
    }
    out.push({ op: '…', text: head });
    out.push(...lines);
  });
  return out;
}

/** Lines removed and added over a file's changes that did not fail; undefined parts are unknown. */
export function fileCounts(file: ChangedFile): { removed: number | undefined; added: number | undefined } {
  let removed: number | undefined = 0;
  let added: number | undefined = 0;
  for (const c of file.changes) {
    if (c.failed) continue;
    removed = removed === undefined || c.removed === undefined ? undefined : removed + c.removed;
    added = added === undefined || c.added === undefined ? undefined : added + c.added;
  }
  return { removed, added };
}
