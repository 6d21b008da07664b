// The files a chat's agent changed, from the tool calls its messages hold. The chat knows a call by
// its title and input (what the agent sent over ACP), not by a tool type as the reader does, so each
// call is read by its shape: an input with a file and its content is a write, one with a before and
// after is an edit, one carrying a patch is a patch, and a call whose result holds the protocol's diff
// blocks is an edit of each block's file. Each becomes the item the reader's file list is built from,
// so the chat and the reader list and draw changed files the same way.

import { type ChangedFile, filesChanged } from '../timeline/files-changed.js';
import { editPairs, type Item, isObject } from '../timeline/item.js';
import { MAIN_LANE } from '../timeline/model.js';
import type { ChatState } from './state.js';

type Loose = Record<string, unknown>;

/** A changed file of the chat, each change's call known by the chat's tool id. */
export interface ChatChanges {
  readonly files: readonly ChangedFile[];
  /** The chat's tool call behind each change's item, by the item's uuid (the call's id). */
  readonly calls: ReadonlyMap<string, { readonly id: string; readonly name: string }>;
}

const pathIn = (args: Loose): unknown => args.file_path ?? args.path ?? args.absolute_path ?? args.filePath;

const hasPatch = (args: Loose): boolean =>
  Object.values(args).some((v) => typeof v === 'string' && v.includes('*** Begin Patch'));

/** The protocol's diff blocks in a call's result: `{type: 'diff', path, oldText, newText}`. */
function diffBlocks(result: unknown): { path: string; oldText: string; newText: string }[] {
  const blocks = Array.isArray(result)
    ? result
    : isObject(result) && Array.isArray(result.content)
      ? result.content
      : [];
  return blocks.flatMap((b) =>
    isObject(b) && b.type === 'diff' && typeof b.path === 'string' && typeof b.newText === 'string'
      ? [{ path: b.path, oldText: typeof b.oldText === 'string' ? b.oldText : '', newText: b.newText }]
      : [],
  );
}

/** The tool name and input a call is read as, one per file it changes; none for other calls. */
function asChanges(args: unknown, result: unknown): { tool: string; input: Loose }[] {
  if (isObject(args)) {
    const path = pathIn(args);
    if (hasPatch(args)) return [{ tool: 'apply_patch', input: args }];
    if (typeof path === 'string' && editPairs(args))
      return [{ tool: 'Edit', input: { ...args, file_path: path } }];
    if (typeof path === 'string' && typeof args.content === 'string')
      return [{ tool: 'Write', input: { ...args, file_path: path } }];
  }
  return diffBlocks(result).map((d) => ({
    tool: 'Edit',
    input: { file_path: d.path, old_string: d.oldText, new_string: d.newText },
  }));
}

/** Every file the chat's agent changed, in the order first changed, each change pointing at its call. */
export function chatChanges(entries: ChatState['entries']): ChatChanges {
  const items: Item[] = [];
  const calls = new Map<string, { id: string; name: string }>();
  for (const entry of entries) {
    if (entry.kind !== 'assistant') continue;
    for (const part of entry.parts) {
      if (part.kind !== 'tool') continue;
      asChanges(part.args, part.result).forEach(({ tool, input }, n) => {
        // One item per file a call's diff blocks name, each with a uuid of its own.
        const uuid = n === 0 ? part.id : `${part.id}#${n}`;
        calls.set(uuid, { id: part.id, name: part.name || tool });
        const use = { type: `tool:${tool}`, role: 'use', uuid, tool_use_id: uuid, input };
        items.push(use as unknown as Item);
        if (part.isError) {
          const failed = {
            type: `tool:${tool}`,
            role: 'result',
            uuid: `${uuid}!`,
            tool_use_id: uuid,
            is_error: true,
          };
          items.push(failed as unknown as Item);
        }
      });
    }
  }
  return { files: filesChanged([[MAIN_LANE, items]]), calls };
}
