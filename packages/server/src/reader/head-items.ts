// The first items of a long session, read from the start of its main file alone, or its last items,
// read from the file's end: what a reader sees on its first screen, ready in a few hundredths of a
// second while the whole session is still being read. They are a preview: the history that follows
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
    return previewItems(main, data, (items) => items.slice(0, limit));
  }
  const size = (await platform.fs.stat(main.path)).size;
  const from = Math.max(0, size - bytes);
  let data = await platform.fs.readRange(main.path, from, size - from);
  // From the first line that starts inside the part (the whole file when it is that short).
  if (from > 0) data = data.subarray(data.indexOf(10) + 1);
  return previewItems(main, data, (items) => items.slice(-limit));
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

/** The main lane's items in `data` (whole lines of the main file), as `pick` chooses among them. */
function previewItems(
  { adapter, path }: MainLineFile,
  bytes: Uint8Array,
  pick: (items: TranscriptItem[]) => TranscriptItem[],
): TranscriptItem[] | undefined {
  // Whole lines only, and none that the adapter reads only with the line after it.
  let data = bytes.subarray(0, bytes.lastIndexOf(10) + 1);
  if (adapter.keepWithNext) data = data.subarray(0, heldLinesFrom(data, adapter.keepWithNext));
  if (data.length === 0) return undefined;
  const translator = new Translator(adapter);
  const pushed = translator.push([{ path, data }]);
  if (!pushed.ok) return undefined;
  const t = translator.snapshot();
  const items = new IncrementalItems();
  items.update(t, pushed.value);
  const lane = items.all(t).find((l) => l.isMain);
  return lane ? pick(lane.classification.items) : undefined;
}
