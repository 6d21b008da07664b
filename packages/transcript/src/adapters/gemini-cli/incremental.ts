// A Gemini CLI session translated as its files change. A legacy document is rewritten whole at each
// change, so every push hands over the whole document again: its bytes are compared with the last
// ones, the messages that lie before the first byte that changed keep their events, and only the
// rest is parsed and translated. The CLI changes the last message or adds one, so that rest is a
// message or two, however long the session. (Keeping each message's events by its bytes, wherever
// it moves, would also save the rare rewrite that shifts every message, but an event id depends on
// the ids made before it: only an unchanged prefix is sure to make the same ones.)
// A JSONL file grows by lines; its bytes are held and it is translated whole at each push.
// The new translation is then set against the last: an event both make is kept as the same object,
// brought up to date in place, so that what was built on it stays; what cannot be told as events
// added and changed in place (an event gone, events reordered, one added before an event of its
// lane that made an item) answers 'rewrite'.
import type {
  IncrementalTranslation,
  SourceFile,
  TranslatedSession,
  TranslationDelta,
} from '../../adapter.js';
import type { TranscriptEvent } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { EventIds } from './ids.js';
import { translateJsonl } from './jsonl.js';
import { type LegacyRead, translateLegacy } from './legacy.js';
import { isJsonlFile } from './paths.js';
import { assembleSession } from './translate.js';
import type { TranslatedFile } from './translated-file.js';

interface HeldFile {
  path: string;
  /** The file's bytes as the last push had them (a JSONL file's in a buffer with room to grow). */
  data: Uint8Array;
  buffer?: Uint8Array;
  /** A legacy document's messages and where they were, for the next rewrite. */
  read?: LegacyRead;
}

export class GeminiTranslation implements IncrementalTranslation {
  private held: HeldFile[] = [];
  private translated: TranslatedSession | undefined;

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    if (files.length < this.held.length) return ok('rewrite');
    const whole: SourceFile[] = [];
    const held: HeldFile[] = [];
    for (const [i, f] of files.entries()) {
      const before = this.held[i];
      if (before && before.path !== f.path) return ok('rewrite');
      const start = f.start ?? 0;
      if (start === 0) {
        // A copy: the caller may read its next bytes into the same buffer.
        const data = f.data.slice();
        whole.push({ ...f, data });
        held.push({ path: f.path, data });
        continue;
      }
      // Only the bytes past the last push: a JSONL file that grew, joined to what is held of it.
      if (!before || before.data.length !== start || !isJsonlFile(f.path, before.data)) return ok('rewrite');
      const grown = appendBytes(before, f.data);
      const { start: _, ...rest } = f;
      whole.push({ ...rest, data: grown.data });
      held.push(grown);
    }

    const ids = new EventIds();
    const translated: TranslatedFile[] = [];
    // Whether the ids made so far are those the last push made: a file's messages can be taken
    // over only then.
    let sameIds = true;
    for (const [i, f] of whole.entries()) {
      const before = this.held[i];
      if (isJsonlFile(f.path, f.data)) {
        const r = translateJsonl(f, i, ids);
        if (!r.ok) return r;
        translated.push(r.value);
        sameIds &&= before !== undefined && sameBytes(before.data, f.data);
        continue;
      }
      const r = translateLegacy(f, i, ids, sameIds ? before?.read : undefined);
      if (!r.ok) return r;
      if (r.value.doubtful) return ok('rewrite');
      const { read, doubtful: _, ...file } = r.value;
      if (read) held[i]!.read = read;
      translated.push(file);
      sameIds &&= read?.unchanged === true;
    }

    const session = assembleSession(whole, translated);
    const last = this.translated;
    this.held = held;
    if (!last) {
      this.translated = session;
      return ok({ from: 0, added: [...session.events], updated: [], revised: [] });
    }
    // A lane that is no longer where it was, or is named otherwise, changes events already read.
    if (last.agents.some((lane, i) => session.agents[i]?.id !== lane.id)) return ok('rewrite');
    const kept = new Map<TranscriptEvent, TranscriptEvent>();
    const delta = reconcile(last.events, session.events, kept);
    if (delta === 'rewrite') return ok('rewrite');
    // The messages translated this time keep the events the transcript holds, for the next push.
    for (const { read } of held)
      for (const el of read?.elements.slice(read.translatedFrom) ?? [])
        el.events = el.events.map((e) => kept.get(e) ?? e);
    this.translated = session;
    return ok(delta);
  }

  snapshot(): TranslatedSession {
    return this.translated ?? { agents: [], capabilities: [], events: [], session: { id: '' }, skipped: [] };
  }
}

/**
 * Sets the events of the new translation (`now`) against those of the last (`old`): an event of
 * both (the same object, or one with the same id) keeps the old object, brought up to date in
 * place; `now` is changed to hold it, and `kept` maps the new object to the old. 'rewrite' when the
 * change is not additions and changes in place.
 */
function reconcile(
  old: TranscriptEvent[],
  now: TranscriptEvent[],
  kept: Map<TranscriptEvent, TranscriptEvent>,
): TranslationDelta | 'rewrite' {
  const updated: TranscriptEvent[] = [];
  const revised: TranscriptEvent[] = [];
  const take = (o: TranscriptEvent, e: TranscriptEvent): boolean => {
    if (o.kind !== e.kind || o.agentId !== e.agentId || !revisable(o, e)) return false;
    const change = refresh(o, e);
    if (change !== 'same') updated.push(o);
    if (change === 'revised') revised.push(o);
    kept.set(e, o);
    return true;
  };
  // Most often the events line up, the metadata's and the changed message's made again: walk both.
  let same = 0;
  for (; same < old.length && same < now.length; same++) {
    const o = old[same]!;
    const e = now[same]!;
    if (o === e) continue;
    if (o.id !== e.id) break;
    if (!take(o, e)) return 'rewrite';
    now[same] = o;
  }
  // Past the first event that does not line up, each is found by its id.
  const oldAt = new Map<TranscriptEvent, number>();
  const byId = new Map<string, TranscriptEvent>();
  for (let j = same; j < old.length; j++) {
    oldAt.set(old[j]!, j);
    byId.set(old[j]!.id, old[j]!);
  }
  const added = new Set<TranscriptEvent>();
  let lastOld = same - 1;
  for (let j = same; j < now.length; j++) {
    const e = now[j]!;
    let at = oldAt.get(e);
    if (at === undefined) {
      const o = byId.get(e.id);
      if (!o) {
        added.add(e);
        continue;
      }
      if (!take(o, e)) return 'rewrite';
      now[j] = o;
      at = oldAt.get(o)!;
    }
    if (at <= lastOld) return 'rewrite';
    lastOld = at;
  }
  if (now.length - added.size !== old.length) return 'rewrite';
  let from = same;
  while (from < old.length && now[from] === old[from]) from++;
  // A lane's items are read in its events' order: a new event may go before an earlier one of its
  // lane only when that one makes no item (a request, which only the summary counts).
  const itemsAfter = new Set<string>();
  for (let j = now.length - 1; j >= from; j--) {
    const e = now[j]!;
    if (!added.has(e)) {
      if (e.kind !== 'request') itemsAfter.add(e.agentId);
    } else if (itemsAfter.has(e.agentId)) return 'rewrite';
  }
  return { from, added: [...added], updated, revised };
}

/**
 * Whether what a later read of `o` says (`e`) can be taken in place: items are read again for a
 * changed message or result, the summary counts a request again, session metadata and a call's
 * status make no item. Any other payload that changed would leave its item as it was.
 */
function revisable(o: TranscriptEvent, e: TranscriptEvent): boolean {
  switch (o.kind) {
    case 'user':
    case 'tool_result':
    case 'request':
      return true;
    case 'system':
      return (
        (o.payload.type === 'session_meta' && e.kind === 'system' && e.payload.type === 'session_meta') ||
        samePayload(o, e)
      );
    case 'tool_call':
      return (
        e.kind === 'tool_call' &&
        samePayload(
          { ...o, payload: { ...o.payload, status: undefined } },
          { ...e, payload: { ...e.payload, status: undefined } },
        )
      );
    default:
      return samePayload(o, e);
  }
}

const samePayload = (a: TranscriptEvent, b: TranscriptEvent): boolean =>
  JSON.stringify(a.payload) === JSON.stringify(b.payload);

/**
 * Brings `o` to what `e` says, keeping `o` (and its pointer, which items hold) as objects, and the
 * order of their fields as a fresh translation has it. Says whether the payload changed ('revised'),
 * only another field ('marked'), or nothing.
 */
function refresh(o: TranscriptEvent, e: TranscriptEvent): 'same' | 'marked' | 'revised' {
  // A result whose call is nowhere is marked so after translation: the mark is not a change.
  if (o.kind === 'tool_result' && o.payload.orphan === true && e.kind === 'tool_result')
    e.payload.orphan = true;
  const seq = o.seq;
  const source = o.source;
  const payloadChanged = JSON.stringify(o.payload) !== JSON.stringify(e.payload);
  const restChanged =
    JSON.stringify({ ...o, payload: 0, seq: 0 }) !== JSON.stringify({ ...e, payload: 0, seq: 0 });
  if (!payloadChanged && !restChanged) return 'same';
  const fields = o as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) delete fields[key];
  Object.assign(o, e, { seq, source });
  const pointer = source as unknown as Record<string, unknown>;
  for (const key of Object.keys(pointer)) delete pointer[key];
  Object.assign(source, e.source);
  return payloadChanged ? 'revised' : 'marked';
}

/** `held`'s bytes with `more` after them, in a buffer that doubles when full. */
function appendBytes(held: HeldFile, more: Uint8Array): HeldFile {
  const length = held.data.length + more.length;
  let buffer = held.buffer;
  if (!buffer || buffer.length < length) {
    buffer = new Uint8Array(Math.max(length, 2 * held.data.length, 64 * 1024));
    buffer.set(held.data);
  }
  buffer.set(more, held.data.length);
  return { path: held.path, data: buffer.subarray(0, length), buffer };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
