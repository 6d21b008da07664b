// The older JSON tree an OpenCode-family agent kept before its SQLite store (and migrates from):
// `storage/session/<projectID>/<sessionID>.json`, `storage/message/<sessionID>/<messageID>.json`,
// `storage/part/<messageID>/<partID>.json`. A session's files are its session file, then its
// messages' and parts' files, then those of the sessions it started.
import type { AdapterContext } from '../../adapter.js';
import type { DirEntry } from '../../platform.js';
import { isObject, type JsonObject, stringField } from '../gemini-cli/records.js';
import { entryIs, isMissing } from '../gemini-cli/session-dirs.js';
import { segments } from './paths.js';

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The folder's JSON files (by name), or none when it does not exist. */
export async function jsonFiles(ctx: AdapterContext, dir: string): Promise<string[]> {
  let entries: DirEntry[];
  try {
    entries = await ctx.platform.fs.readdir(dir);
  } catch (cause) {
    if (isMissing(cause)) return [];
    throw cause;
  }
  const out: string[] = [];
  for (const e of entries.sort(byName)) {
    if (e.name.endsWith('.json') && (await entryIs(ctx, dir, e, 'file')))
      out.push(ctx.platform.join(dir, e.name));
  }
  return out;
}

/** The folder's sub-folders (by name), or none when it does not exist. */
export async function subFolders(ctx: AdapterContext, dir: string): Promise<string[]> {
  let entries: DirEntry[];
  try {
    entries = await ctx.platform.fs.readdir(dir);
  } catch (cause) {
    if (isMissing(cause)) return [];
    throw cause;
  }
  const out: string[] = [];
  for (const e of entries.sort(byName))
    if (await entryIs(ctx, dir, e, 'directory')) out.push(ctx.platform.join(dir, e.name));
  return out;
}

/** A small JSON file as an object, or undefined when it is not one. */
export async function readJsonObject(ctx: AdapterContext, path: string): Promise<JsonObject | undefined> {
  const bytes = await ctx.platform.fs.readFile(path, ctx.signal);
  try {
    const v = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `<storage>` for a session file `<storage>/session/<project>/<id>.json`. */
export function storageOf(sessionFile: string, join: (...p: string[]) => string): string | undefined {
  const parts = segments(sessionFile);
  if (parts.length < 4 || parts[parts.length - 3] !== 'session') return undefined;
  const root = sessionFile.slice(0, sessionFile.length - parts.slice(-3).join('/').length - 1);
  return root === '' ? undefined : join(root);
}

/** Every file of the session whose session file is `main`: its own, then its children's. */
export async function treeSessionFiles(ctx: AdapterContext, main: string): Promise<string[]> {
  const { join } = ctx.platform;
  const storage = storageOf(main, join);
  const self = await readJsonObject(ctx, main);
  const id = self ? stringField(self, 'id') : undefined;
  if (storage === undefined || id === undefined) return [main];
  const projectDir = main.slice(0, main.length - (segments(main).pop() ?? '').length - 1);
  // Children are sessions of the same project whose parentID names this one (at any depth).
  const byParent = new Map<string, { id: string; path: string }[]>();
  for (const path of await jsonFiles(ctx, projectDir)) {
    if (path === main) continue;
    const s = await readJsonObject(ctx, path).catch(() => undefined);
    const sid = s ? stringField(s, 'id') : undefined;
    const parent = s ? stringField(s, 'parentID') : undefined;
    if (sid === undefined || parent === undefined) continue;
    const list = byParent.get(parent) ?? [];
    list.push({ id: sid, path });
    byParent.set(parent, list);
  }
  const flatParts = await flatPartFiles(ctx, join(storage, 'part'));
  const files = [main];
  const visit = async (sid: string, depth: number) => {
    const messages = await jsonFiles(ctx, join(storage, 'message', sid));
    files.push(...messages);
    for (const m of messages) {
      const mid = (segments(m).pop() ?? '').replace(/\.json$/, '');
      const recorded = await readJsonObject(ctx, m).catch(() => undefined);
      const messageId = (recorded && stringField(recorded, 'id')) ?? mid;
      files.push(...(await jsonFiles(ctx, join(storage, 'part', messageId))));
      files.push(...(flatParts.get(messageId) ?? []));
    }
    if (depth > 32) return;
    for (const child of byParent.get(sid) ?? []) {
      files.push(child.path);
      await visit(child.id, depth + 1);
    }
  };
  await visit(id, 0);
  return files;
}

/** Part files kept directly in `part/` (not in a folder per message), by the message they name. */
async function flatPartFiles(ctx: AdapterContext, partDir: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const path of await jsonFiles(ctx, partDir)) {
    const p = await readJsonObject(ctx, path).catch(() => undefined);
    const mid = p ? stringField(p, 'messageID') : undefined;
    if (mid === undefined) continue;
    const list = out.get(mid) ?? [];
    list.push(path);
    out.set(mid, list);
  }
  return out;
}
