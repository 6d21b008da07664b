// The first items of a long session, read from the start of its main file alone: what a reader sees
// on its first screen, ready in a few hundredths of a second while the whole session is still being
// read. They are a preview: the history that follows replaces them (an item near the part's end may
// still learn its result, or be read otherwise, once the records after it are in).
import type { TranscriptItem } from '@cairn/protocol';
import {
  findSession,
  heldLinesFrom,
  IncrementalItems,
  type SessionPlatform,
  Translator,
} from '@cairn/transcript';
import { isLineFile } from './source-files.js';

/** Bytes of the main file the preview reads: enough for a few screens of items. */
export const HEAD_PREVIEW_BYTES = 256 * 1024;

/**
 * The main lane's items in the first `bytes` of the session's main file (cut after its last whole
 * line), at most `limit` of them; undefined when the session is not one of line files (a JSON
 * document or a compressed rollout is read whole or not at all) or the part cannot be read.
 */
export async function headItems(
  platform: SessionPlatform,
  agent: string,
  path: string,
  { bytes = HEAD_PREVIEW_BYTES, limit = 200 }: { bytes?: number; limit?: number } = {},
): Promise<TranscriptItem[] | undefined> {
  const found = await findSession(platform, { agent, path });
  if (!found.ok) return undefined;
  const { adapter, paths } = found.value;
  const main = paths[0];
  if (main === undefined || !paths.every(isLineFile)) return undefined;
  let data = await platform.fs.readRange(main, 0, bytes);
  // Whole lines only, and none that the adapter reads only with the line after it.
  data = data.subarray(0, data.lastIndexOf(10) + 1);
  if (adapter.keepWithNext) data = data.subarray(0, heldLinesFrom(data, adapter.keepWithNext));
  if (data.length === 0) return undefined;
  const translator = new Translator(adapter);
  const pushed = translator.push([{ path: main, data }]);
  if (!pushed.ok) return undefined;
  const t = translator.snapshot();
  const items = new IncrementalItems();
  items.update(t, pushed.value);
  const lane = items.all(t).find((l) => l.isMain);
  return lane?.classification.items.slice(0, limit);
}
