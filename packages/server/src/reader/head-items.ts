// The first items of a long session, read from the start of its main file alone, its last items,
// read from the file's end, or the items around one that a link names, read from the part of the file
// around its record: what a reader sees on its first screen, ready in a few hundredths of a second
// while the whole session is still being read. They are a preview: the history that follows
// replaces them (an item near the part's edge may still learn its result, or be read otherwise, once
// the records around it are in).
import type { TranscriptItem } from '@cairn/protocol';
import {
  findSession,
  heldLinesFrom,
  IncrementalItems,
  type SessionAdapter,
  type SessionPlatform,
  Translator,
} from '@cairn/transcript';
import { readsPartAfterHeader, recordPlace } from './record-place.js';
import { isLineFile } from './source-files.js';

/** Bytes of the main file the preview reads: enough for a few screens of items. */
export const HEAD_PREVIEW_BYTES = 256 * 1024;

/**
 * The main lane's items at one edge of the session's main file: at most `limit` of the first ones,
 * in its first `bytes` (cut after its last whole line), or of the last ones, in its last `bytes`
 * from the first line that starts there. Undefined when the session is not one of line files (a
 * JSON document or a compressed rollout is read whole or not at all) or the part cannot be read.
 * A part from the end is translated as if the file began there, so its items' ids and pointers may
 * be those of the part (a Codex item is named by its line): they are for showing until the history
 * comes, not for linking.
 */
export async function edgeItems(
  platform: SessionPlatform,
  agent: string,
  path: string,
  edge: 'start' | 'end',
  { bytes = HEAD_PREVIEW_BYTES, limit = 200 }: { bytes?: number; limit?: number } = {},
): Promise<TranscriptItem[] | undefined> {
  const main = await mainLineFile(platform, agent, path);
  if (!main) return undefined;
  if (edge === 'start') {
    const data = await platform.fs.readRange(main.path, 0, bytes);
    return previewItems(main, data, undefined, (items) => items.slice(0, limit));
  }
  const size = (await platform.fs.stat(main.path)).size;
  const from = Math.max(0, size - bytes);
  let data = await platform.fs.readRange(main.path, from, size - from);
  // From the first line that starts inside the part (the whole file when it is that short).
  if (from > 0) data = data.subarray(data.indexOf(10) + 1);
  const header = from > 0 ? await headerOf(platform, main) : undefined;
  return previewItems(main, data, undefined, (items) => items.slice(-limit), header);
}

/** Bytes before a linked record's line that its preview reads, and bytes after it. */
const AROUND_BEFORE_BYTES = 192 * 1024;
const AROUND_AFTER_BYTES = 64 * 1024;
/** A record's line longer than this is not previewed: the history brings it. */
const AROUND_LINE_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The main lane's items around item `uuid`, read from the part of the main file around the record it
 * comes from: at most `limit` of them, the linked item among the first half. The record is found by
 * scanning the file's bytes (see recordPlace), and the part is translated alone (after the file's
 * header, for an agent that needs it): its items' ids are the file's own (most agents' are their
 * records' ids, a Codex item's its line, counted from the record found), but pointers and turns
 * count from the part. Undefined when the record cannot be found that way, or its item is not among
 * those the part makes.
 */
export async function itemsAround(
  platform: SessionPlatform,
  agent: string,
  path: string,
  uuid: string,
  { limit = 200 }: { limit?: number } = {},
): Promise<TranscriptItem[] | undefined> {
  const main = await mainLineFile(platform, agent, path);
  if (!main) return undefined;
  const place = await recordPlace(platform, main.adapter.id, main.path, uuid);
  if (!place) return undefined;
  const size = (await platform.fs.stat(main.path)).size;
  const from = Math.max(0, place.offset - AROUND_BEFORE_BYTES);
  // Past the record's own line, however long, and a little after it.
  let end = Math.min(size, place.offset + AROUND_AFTER_BYTES);
  let data = await platform.fs.readRange(main.path, from, end - from);
  while (data.indexOf(10, place.offset - from) === -1 && end < size) {
    if (end - place.offset > AROUND_LINE_MAX_BYTES) return undefined;
    end = Math.min(size, end + Math.max(AROUND_AFTER_BYTES, end - place.offset));
    data = await platform.fs.readRange(main.path, from, end - from);
  }
  // From the first line that starts inside the part; its number, counted back from the record's.
  let cut = 0;
  if (from > 0) cut = data.indexOf(10) + 1;
  let line: number | undefined;
  if (place.line !== undefined) {
    line = place.line;
    for (let at = place.offset - from - 1; at >= cut; at--) if (data[at] === 10) line--;
  }
  const header = from + cut > 0 ? await headerOf(platform, main) : undefined;
  const items = previewItems(
    main,
    data.subarray(cut),
    line,
    (items) => {
      const at = items.findIndex((i) => i.uuid === uuid);
      if (at === -1) return [];
      const start = Math.max(0, Math.min(at - Math.floor(limit / 4), items.length - limit));
      return items.slice(start, start + limit);
    },
    header,
  );
  return items && items.length > 0 ? items : undefined;
}

interface MainLineFile {
  adapter: SessionAdapter;
  path: string;
}

/** The session's main file, when all its files are line files. */
async function mainLineFile(
  platform: SessionPlatform,
  agent: string,
  path: string,
): Promise<MainLineFile | undefined> {
  const found = await findSession(platform, { agent, path });
  if (!found.ok) return undefined;
  const { adapter, paths } = found.value;
  const main = paths[0];
  if (main === undefined || !paths.every(isLineFile)) return undefined;
  return { adapter, path: main };
}

/** The main lane's items in `data` (whole lines of the main file, the first of them numbered `line`
 * when not the file's first), as `pick` chooses among them. With `header` (see headerOf) the part is
 * read after it, and the header's own items are not among those picked from. */
function previewItems(
  main: MainLineFile,
  bytes: Uint8Array,
  line: number | undefined,
  pick: (items: TranscriptItem[]) => TranscriptItem[],
  header?: Uint8Array | 'unread',
): TranscriptItem[] | undefined {
  if (header === 'unread') return undefined;
  // Whole lines only, and none that the adapter reads only with the line after it.
  let data = bytes.subarray(0, bytes.lastIndexOf(10) + 1);
  if (main.adapter.keepWithNext) data = data.subarray(0, heldLinesFrom(data, main.adapter.keepWithNext));
  if (data.length === 0) return undefined;
  if (!header) {
    const items = mainItems(main, data, line);
    return items && pick(items);
  }
  const before = mainItems(main, header, undefined);
  const both = before && mainItems(main, Buffer.concat([header, data]), undefined);
  return both && pick(both.slice(before.length));
}

/** The main lane's items that whole lines `data` of the main file make, translated alone. */
function mainItems(
  { adapter, path }: MainLineFile,
  data: Uint8Array,
  line: number | undefined,
): TranscriptItem[] | undefined {
  const translator = new Translator(adapter);
  const pushed = translator.push([{ path, data, ...(line === undefined ? {} : { line }) }]);
  if (!pushed.ok) return undefined;
  const t = translator.snapshot();
  const items = new IncrementalItems();
  items.update(t, pushed.value);
  return items.all(t).find((l) => l.isMain)?.classification.items;
}

/** Bytes of a header line read before giving up on it. */
const HEADER_MAX_BYTES = 64 * 1024;

/**
 * The main file's first line (with its line break) when a part of it is read after it (see
 * readsPartAfterHeader); 'unread' when that line is too long to look for; undefined for the others.
 */
async function headerOf(
  platform: SessionPlatform,
  { adapter, path }: MainLineFile,
): Promise<Uint8Array | 'unread' | undefined> {
  if (!readsPartAfterHeader(adapter.id)) return undefined;
  const head = await platform.fs.readRange(path, 0, HEADER_MAX_BYTES);
  const nl = head.indexOf(10);
  return nl === -1 ? 'unread' : head.slice(0, nl + 1);
}
