// `transcript_read` (records as written, by byte range) and `transcript_items_read` (items, selected
// and paged, with the same range and selection a dump takes; a range cut only by position is paged
// from the items held for the session, see lane-range.ts).
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { OpResult, SessionDumpWriteArgs } from '@cairn/protocol';
import {
  buildDump,
  findLane,
  idsLedger,
  presetLookup,
  readDumpPresets,
  readSourceFile,
  selection,
} from '@cairn/transcript';
import type { SessionEntry } from '../reader/catalog.js';
import { done, fail, type OpContext, type OpHandler, offsetOf, sessionOf } from './context.js';
import {
  aroundRecord,
  dumpedSelection,
  heldSelection,
  isPlainRange,
  pageOf,
  positionsOf,
} from './lane-range.js';

const READ_BYTES = 64 * 1024;
const READ_MAX = 4 * 1024 * 1024;
const ITEMS_LIMIT = 500;
const ITEMS_MAX = 5000;

/** The file of the session, or of one of its subagents. */
async function fileOf(
  ctx: OpContext,
  e: SessionEntry,
  agentId: string | undefined,
): Promise<string | undefined> {
  if (agentId === undefined) return e.head.path;
  const id = agentId.startsWith('agent-') ? agentId.slice('agent-'.length) : agentId;
  const byName = e.head.files
    .slice(1)
    .find((f) => basename(f).replace(/\.jsonl(\.zst)?$|\.json$/, '') === `agent-${id}`);
  if (byName) return byName;
  const loaded = await ctx.catalog.load(e.key);
  if (!loaded) return undefined;
  const lane = findLane(loaded.transcript, agentId);
  if (!lane) return undefined;
  return loaded.transcript.events.find((ev) => ev.agentId === lane.id)?.source.file;
}

export const transcriptRead: OpHandler<'transcript_read'> = async (req, ctx) => {
  if (req.before !== undefined && req.after !== undefined) {
    return fail('invalid_args', 'give before or after, not both', '/after');
  }
  const found = await sessionOf(ctx, req.sid, req.agent);
  if (!found.ok) return found;
  const file = await fileOf(ctx, found.entry, req.agent_id);
  if (!file) return fail('not_found', `no subagent ${req.agent_id} in session ${req.sid}`, '/agent_id');
  const max = Math.min(req.max_bytes ?? READ_BYTES, READ_MAX);
  let data: Uint8Array;
  let codec: 'zstd' | undefined;
  try {
    if (file.endsWith('.zst')) {
      const source = await readSourceFile(ctx.catalog.platform(), file);
      data = source.data;
      codec = 'zstd';
    } else data = await readAll(file);
  } catch (cause) {
    return fail('not_found', `cannot read ${file}: ${(cause as Error).message}`, '/sid');
  }
  const span =
    req.before !== undefined ? spanBefore(data, req.before, max) : spanAfter(data, req.after ?? 0, max);
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const lines = span.lines.map(([s, e]) => text.toString('utf8', s, e > s && data[e - 1] === 13 ? e - 1 : e));
  const result: Record<string, unknown> = {
    sid: found.entry.sid,
    file,
    lines,
    start: span.start,
    end: span.end,
    size: data.length,
  };
  if (req.agent_id !== undefined) result.agent_id = req.agent_id;
  if (codec) result.codec = codec;
  return done(result as OpResult<'transcript_read'>);
};

async function readAll(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

interface Span {
  /** [start, end) of each record, without its newline. */
  lines: [number, number][];
  start: number;
  end: number;
}

/** Records starting at or after `after`, at least one, until `max` bytes. */
function spanAfter(data: Uint8Array, after: number, max: number): Span {
  let at = Math.min(after, data.length);
  if (at > 0 && data[at - 1] !== 10) {
    const nl = data.indexOf(10, at);
    at = nl === -1 ? data.length : nl + 1;
  }
  const start = at;
  const lines: [number, number][] = [];
  while (at < data.length) {
    const nl = data.indexOf(10, at);
    const lineEnd = nl === -1 ? data.length : nl;
    const next = nl === -1 ? data.length : nl + 1;
    if (lines.length > 0 && next - start > max) break;
    lines.push([at, lineEnd]);
    at = next;
  }
  return { lines, start, end: at };
}

/** Records ending at or before `before`, the latest first to go in, at least one, until `max` bytes. */
function spanBefore(data: Uint8Array, before: number, max: number): Span {
  // The end of the last record that ends at or before `before`: just past its newline.
  let end = Math.min(before, data.length);
  if (end < data.length) end = end > 0 ? data.lastIndexOf(10, end - 1) + 1 : 0;
  const lines: [number, number][] = [];
  let start = end;
  while (start > 0) {
    const lineEnd = data[start - 1] === 10 ? start - 1 : start;
    const prev = lineEnd > 0 ? data.lastIndexOf(10, lineEnd - 1) : -1;
    const lineStart = prev + 1;
    if (lines.length > 0 && end - lineStart > max) break;
    lines.unshift([lineStart, lineEnd]);
    start = lineStart;
  }
  return { lines, start, end };
}

export const transcriptItemsRead: OpHandler<'transcript_items_read'> = async (req, ctx) => {
  const places = [req.cursor, req.offset, req.around_uuid].filter((p) => p !== undefined).length;
  if (places > 1) return fail('invalid_args', 'give one of cursor, offset and around_uuid', '/offset');
  const offset = req.offset ?? offsetOf(req.cursor, 'i');
  if (offset === undefined) return fail('invalid_args', 'not a cursor this server issued', '/cursor');
  const found = await sessionOf(ctx, req.sid, req.agent);
  if (!found.ok) return found;
  const presets = await readDumpPresets(ctx.server.home);
  if (!presets.ok) return fail('internal_error', presets.error.message);
  const loaded = await ctx.catalog.load(found.entry.key);
  if (!loaded) return fail('not_found', `session ${req.sid} could not be read`, '/sid');
  const {
    limit,
    cursor: _cursor,
    offset: _offset,
    around_uuid,
    with_ids,
    positions_of,
    request_id: _id,
    op: _op,
    ...range
  } = req;
  const size = Math.min(limit ?? ITEMS_LIMIT, ITEMS_MAX);
  // A range cut only by position is a page of the items held for the session's lane; a selection
  // that names no preset of this server is left to the dump, which says what is wrong with it.
  const sel = isPlainRange(req) ? selection(range, presetLookup(presets.value)) : undefined;
  let chosen = sel?.ok ? heldSelection(loaded, req.agent_id, sel.value) : undefined;
  let types = sel?.ok ? [...sel.value.elements] : [];
  let whole: { ids: unknown; subject: string | undefined } | undefined;
  if (!chosen) {
    const built = buildDump(loaded.transcript, range as SessionDumpWriteArgs, {
      presets: presets.value,
      writtenAt: Date.now(),
    });
    if (!built.ok) return fail(built.error.code, built.error.message, `/${built.error.field}`);
    const { file, entries } = built.value;
    chosen = dumpedSelection(file.items, entries);
    types = file.types;
    whole = { ids: file.ids, subject: file.agent_id };
  }
  const at = around_uuid === undefined ? offset : aroundRecord(chosen, around_uuid, size);
  if (at === undefined)
    return fail('not_found', `no record '${around_uuid}' among the items read`, '/around_uuid');
  const items = pageOf(chosen, at, size);
  const total = chosen.items.length;
  const result: Record<string, unknown> = {
    items,
    types,
    total,
    entries: chosen.entries,
    calls: chosen.calls,
    offset: at,
  };
  if (at + items.length < total) result.next_cursor = `i:${at + items.length}`;
  if (positions_of) result.positions = positionsOf(chosen, positions_of);
  if (with_ids) {
    if (whole && items.length === total) result.ids = whole.ids;
    else {
      const agentLabels = new Map<string, string>();
      for (const a of loaded.transcript.agents) if (a.title !== undefined) agentLabels.set(a.id, a.title);
      const subject = whole
        ? whole.subject
        : req.agent_id === undefined
          ? undefined
          : findLane(loaded.transcript, req.agent_id)?.id;
      result.ids = idsLedger(items, { subjectAgentId: subject, agentLabels });
    }
  }
  return done(result as OpResult<'transcript_items_read'>);
};
