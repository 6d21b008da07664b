// A store session followed live: each read takes from the store only the rows that changed since
// the last one (store-changes.ts) and translates again only from the first message they touch, the
// messages before it keeping their events. New rows that only add events after the known ones give
// a delta of those events; rows that change events already given (a part rewritten as it streams,
// a message closed with its tokens) start the transcript's readers over, from the rows held here,
// without reading the store again.
import { appendAll } from '../../arrays.js';
import type { TranscriptDelta } from '../../incremental.js';
import type { SkippedRecord, Transcript, TranscriptEvent, TranscriptEventPayloads } from '../../model.js';
import { isWireId } from '../../values.js';
import { isObject } from '../gemini-cli/records.js';
import { shownCapabilities } from '../shared.js';
import { storeSessionPath } from './paths.js';
import { type StoreLine, type StoreStamp, storeStampOf } from './sqlite.js';
import { readStoreChanges, type StoreChanges, type StoreMarks } from './store-changes.js';
import { type Row, sessionOf, storeRow, storeRowSource, Translation } from './translate.js';

/** Event ids handed out so far, given back when the events that held them are translated again. */
class HeldIds {
  private readonly used = new Set<string>();

  make(base: string, where: string): string {
    let id = base || where;
    if (this.used.has(id)) id = `${base}@${where}`;
    for (let n = 2; this.used.has(id); n++) id = `${base}@${where}#${n}`;
    this.used.add(id);
    return id;
  }

  release(id: string): void {
    this.used.delete(id);
  }
}

interface HeldMessage {
  row: Row;
  /** The `time_created` column, which orders messages of the same time as a whole export does. */
  column: number;
  at: number;
  rowid: number;
}

/** What one read did: the transcript's delta, and how many rows and bytes it took from the store. */
export interface StoreTailRead {
  delta: TranscriptDelta;
  rows: number;
  bytes: number;
}

const rowKey = (line: StoreLine): string => `${line.table}:${String(line.row.id)}`;

export class StoreSessionTail {
  private readonly path: string;
  private marks: StoreMarks | undefined;
  /** Each row's stored form as last read, by table and id: what tells a rewritten row from one read again unchanged. */
  private readonly raw = new Map<string, string>();
  private readonly sessions = new Map<string, Row>();
  /** Messages in transcript order. */
  private messages: HeldMessage[] = [];
  private readonly messageAt = new Map<string, number>();
  /** Parts by message id, each list in id order (the order they were made). */
  private readonly parts = new Map<string, { row: Row; rowid: number }[]>();
  /** Rows that make no row of the translation (not JSON, no id), by table and id. */
  private readonly badRows = new Map<string, SkippedRecord[]>();
  private events: TranscriptEvent[] = [];
  private skipped: SkippedRecord[] = [];
  /** Per message, where its events and skipped entries begin. */
  private starts: number[] = [];
  private skippedStarts: number[] = [];
  private ids = new HeldIds();
  /** Subagent session id → the tool_call that started it. */
  private spawns = new Map<string, string>();
  /** The lanes that have events, and where the compactions are: what a translation from a message
   * on needs to know of the events before it. */
  private lanesSeen = new Set<string>();
  /** Messages other than a session's last whose rows may still be rewritten (see isOpen). */
  private readonly openIds = new Set<string>();
  /** Message ids that parts name but no message row read has (yet). */
  private readonly waiting = new Set<string>();
  private compactions: number[] = [];
  /** What the events show, kept as they come so that a read need not go over all of them: an
   * event per capability, and the first and last times. */
  private readonly shows = new Map<string, TranscriptEvent>();
  private span: { first?: number; last?: number } = {};
  /** How many message and part rows are held (those that make no row of the translation too). */
  private held = { message: 0, part: 0 };
  /** The highest rowid of the message and part rows held. */
  private lastRowid = { message: 0, part: 0 };
  private transcript: Transcript | undefined;

  constructor(
    /** The adapter's id: `opencode`, `kilo`. */
    private readonly agent: string,
    private readonly db: string,
    private readonly id: string,
  ) {
    this.path = storeSessionPath(db, id);
  }

  /** Reads what changed since the last read (everything the first time) and translates it. */
  async read(): Promise<StoreTailRead> {
    const first = this.marks === undefined;
    let changes = await readStoreChanges(this.db, this.id, this.marks);
    let restart = first;
    if (!first && !this.sameCounts(changes)) {
      // Rows were deleted (a revert): the session is read again whole.
      this.reset();
      changes = await readStoreChanges(this.db, this.id);
      restart = true;
    }
    const lines = [...changes.sessions, ...changes.messages, ...changes.parts];
    const bytes = lines.reduce((n, l) => n + JSON.stringify(l.row).length, 0);
    const affected = this.take(changes);
    const delta = this.translateFrom(restart ? 0 : affected.from, restart || affected.restart);
    this.marks = this.marksNow(changes);
    return { delta, rows: lines.length, bytes };
  }

  /**
   * The session's stamp as storeSessionStamp would give it for the rows read (their counts, highest
   * rowids and the sessions' latest update), without going over the store's indexes again.
   */
  stamp(): StoreStamp | undefined {
    if (this.marks === undefined) return undefined;
    let updated = 0;
    for (const s of this.sessions.values()) {
      const time = isObject(s.data.time) ? s.data.time : {};
      if (typeof time.updated === 'number') updated = Math.max(updated, time.updated);
    }
    return storeStampOf({
      updated,
      messages: this.held.message,
      lastMessage: this.lastRowid.message,
      parts: this.held.part,
      lastPart: this.lastRowid.part,
    });
  }

  /** The transcript as of the last read. */
  snapshot(): Transcript {
    if (!this.transcript) this.transcript = this.finish();
    return this.transcript;
  }

  private reset(): void {
    this.marks = undefined;
    this.raw.clear();
    this.sessions.clear();
    this.messages = [];
    this.messageAt.clear();
    this.parts.clear();
    this.badRows.clear();
    this.events = [];
    this.skipped = [];
    this.starts = [];
    this.skippedStarts = [];
    this.ids = new HeldIds();
    this.spawns = new Map();
    this.held = { message: 0, part: 0 };
    this.lastRowid = { message: 0, part: 0 };
    this.lanesSeen = new Set();
    this.openIds.clear();
    this.waiting.clear();
    this.compactions = [];
    this.shows.clear();
    this.span = {};
  }

  private sameCounts(changes: StoreChanges): boolean {
    if (!changes.counts) return true;
    let newMessages = 0;
    let newParts = 0;
    for (const l of changes.messages) if (!this.raw.has(rowKey(l))) newMessages++;
    for (const l of changes.parts) if (!this.raw.has(rowKey(l))) newParts++;
    return (
      changes.counts.messages === this.held.message + newMessages &&
      changes.counts.parts === this.held.part + newParts
    );
  }

  /**
   * Takes the rows read into what is held. Answers the first message whose events they may change,
   * and whether the translation must start from the first message (the lanes changed under
   * messages already translated, or the order of messages did).
   */
  private take(changes: StoreChanges): { from: number; restart: boolean } {
    let from = Number.POSITIVE_INFINITY;
    let restart = false;
    /** Messages whose row or parts were read: whether they are still open is asked again. */
    const touched = new Set<string>();
    const fresh = (line: StoreLine): boolean => {
      const key = rowKey(line);
      const text = `${line.rowid}|${JSON.stringify(line.row)}`;
      const before = this.raw.get(key);
      if (before === text) return false;
      if (line.table === 'message' || line.table === 'part') {
        if (before === undefined) this.held[line.table]++;
        this.lastRowid[line.table] = Math.max(this.lastRowid[line.table], line.rowid);
      }
      this.raw.set(key, text);
      return true;
    };
    const rowsOf = (line: StoreLine): Row | undefined => {
      const rows: Row[] = [];
      const skipped: SkippedRecord[] = [];
      storeRow(line, storeRowSource(this.path, line), rows, skipped);
      const key = rowKey(line);
      if (skipped.length > 0) this.badRows.set(key, skipped);
      else this.badRows.delete(key);
      return rows[0];
    };
    for (const line of changes.sessions) {
      if (!fresh(line)) continue;
      const row = rowsOf(line);
      if (!row) continue;
      // A session that becomes a lane after its messages were translated on the main lane.
      if (!this.sessions.has(row.id) && this.messages.some((m) => m.row.sessionId === row.id)) restart = true;
      this.sessions.set(row.id, row);
    }
    for (const line of changes.messages) {
      if (!fresh(line)) continue;
      const row = rowsOf(line);
      const id = String(line.row.id);
      const at = this.messageAt.get(id);
      if (!row) {
        if (at !== undefined) restart = true;
        continue;
      }
      const column = typeof line.row.time_created === 'number' ? line.row.time_created : 0;
      const held: HeldMessage = { row, column, at: createdOf(row), rowid: line.rowid };
      if (at !== undefined) {
        const before = this.messages[at]!;
        if (before.at !== held.at || before.column !== held.column) restart = true;
        this.messages[at] = held;
        from = Math.min(from, at);
      } else from = Math.min(from, this.insertMessage(held));
      this.waiting.delete(id);
      touched.add(id);
    }
    for (const line of changes.parts) {
      if (!fresh(line)) continue;
      const row = rowsOf(line);
      const mid =
        row?.messageId ?? (typeof line.row.message_id === 'string' ? line.row.message_id : undefined);
      if (!row || mid === undefined) continue;
      const list = this.parts.get(mid) ?? [];
      const i = list.findIndex((p) => p.row.id === row.id);
      if (i >= 0) list[i] = { row, rowid: line.rowid };
      else {
        let k = list.length;
        while (k > 0 && list[k - 1]!.row.id > row.id) k--;
        list.splice(k, 0, { row, rowid: line.rowid });
      }
      this.parts.set(mid, list);
      if (!this.messageAt.has(mid)) this.waiting.add(mid);
      touched.add(mid);
      const at = this.messageAt.get(mid);
      if (at !== undefined) from = Math.min(from, at);
    }
    for (const mid of touched) {
      const at = this.messageAt.get(mid);
      const m = at === undefined ? undefined : this.messages[at];
      if (m && isOpen(this.parts.get(mid) ?? [])) this.openIds.add(mid);
      else this.openIds.delete(mid);
    }
    return { from, restart };
  }

  /** Places a new message in transcript order; answers its index. */
  private insertMessage(m: HeldMessage): number {
    let k = this.messages.length;
    while (k > 0 && compareMessages(this.messages[k - 1]!, m) > 0) k--;
    this.messages.splice(k, 0, m);
    if (k === this.messages.length - 1) this.messageAt.set(m.row.id, k);
    else for (const [i, h] of this.messages.entries()) this.messageAt.set(h.row.id, i);
    return k;
  }

  /** The messages whose rows may still be rewritten: those open, and the last of each session. */
  private stillOpen(): HeldMessage[] {
    const out: HeldMessage[] = [];
    for (const id of this.openIds) {
      const at = this.messageAt.get(id);
      if (at !== undefined) out.push(this.messages[at]!);
    }
    // Back from the end until each session's last message was met.
    const seen = new Set<string>();
    for (let i = this.messages.length - 1; i >= 0 && seen.size < this.sessions.size; i--) {
      const m = this.messages[i]!;
      const sid = m.row.sessionId ?? '';
      if (!seen.has(sid)) out.push(m);
      seen.add(sid);
    }
    return out;
  }

  /** Where the next read looks: past the rows read, and back to the first row of a message still open. */
  private marksNow(changes: StoreChanges): StoreMarks {
    const prev = this.marks;
    const mark = (lines: readonly StoreLine[], last: number, updated: number) => {
      for (const l of lines) {
        last = Math.max(last, l.rowid);
        if (typeof l.row.time_updated === 'number') updated = Math.max(updated, l.row.time_updated);
      }
      return { last, updated };
    };
    const m = mark(changes.messages, prev?.message.last ?? 0, prev?.message.updated ?? 0);
    const session = mark(changes.sessions, prev?.session.last ?? 0, prev?.session.updated ?? 0);
    const p = mark(changes.parts, prev?.part.last ?? 0, prev?.part.updated ?? 0);
    let messageFloor = m.last + 1;
    let partFloor = p.last + 1;
    for (const h of this.stillOpen()) {
      messageFloor = Math.min(messageFloor, h.rowid);
      for (const part of this.parts.get(h.row.id) ?? []) partFloor = Math.min(partFloor, part.rowid);
    }
    return {
      session,
      message: { ...m, floor: messageFloor },
      part: { ...p, floor: partFloor },
    };
  }

  /**
   * Translates the messages from `from` on, the events before it kept. Answers the delta: the new
   * events when those translated again are the same as before, else a start over.
   */
  private translateFrom(from: number, restart: boolean): TranscriptDelta {
    if (restart) from = 0;
    if (from >= this.messages.length && !restart) {
      this.transcript = undefined;
      return { rewritten: false, from: this.events.length, added: [], updated: [], revised: [] };
    }
    const start = this.starts[from] ?? this.events.length;
    const old = this.events.slice(start);
    // A compaction's summary is written into the compaction before it: translated again, it would
    // not be written again, so such a tail is translated from the start.
    if (start > 0 && old.some((e) => e.kind === 'user' && e.payload.origin === 'compact_summary') && !restart)
      return this.translateFrom(0, true);
    for (const e of old) this.ids.release(e.id);
    const dropped = new Set(old.map((e) => e.id));
    for (const [child, call] of this.spawns) if (dropped.has(call)) this.spawns.delete(child);
    this.events.length = start;
    this.skipped.length = this.skippedStarts[from] ?? this.skipped.length;
    this.starts.length = from;
    this.skippedStarts.length = from;

    const mainId = isWireId(this.id) ? this.id : '';
    const laneOf = (sid: string | undefined): string =>
      sid !== undefined && sid !== mainId && this.sessions.has(sid) && isWireId(sid) ? sid : mainId;
    const t = new Translation(laneOf, { ids: this.ids, ...this.seedAt(start) });
    for (let i = from; i < this.messages.length; i++) {
      this.starts.push(start + t.events.length);
      this.skippedStarts.push(this.skipped.length + t.skipped.length);
      const m = this.messages[i]!;
      t.message(
        m.row,
        (this.parts.get(m.row.id) ?? []).map((p) => p.row),
      );
    }
    for (const [child, call] of t.spawns) this.spawns.set(child, call);
    appendAll(this.skipped, t.skipped);
    const made = t.events;
    this.transcript = undefined;
    const same = !restart && old.length <= made.length && old.every((e, i) => sameEvent(e, made[i]!));
    if (same) {
      const added = made.slice(old.length);
      appendAll(this.events, old);
      appendAll(this.events, added);
      this.number(start + old.length, false);
      return { rewritten: false, from: start + old.length, added, updated: [], revised: [] };
    }
    appendAll(this.events, made);
    this.number(start, true);
    return { rewritten: true, from: 0, added: [...this.events], updated: [], revised: [] };
  }

  /** Numbers the events from `from` on and notes what they show; `anew` when those before `from`
   * changed too (every event is looked at again). */
  private number(from: number, anew: boolean): void {
    for (let i = from; i < this.events.length; i++) this.events[i]!.seq = i;
    if (anew) {
      this.compactions = [];
      this.shows.clear();
      this.span = {};
    }
    this.noteEvents(anew ? 0 : from);
  }

  /** The translation's state after the events before `start`: each lane's last event, the last compaction. */
  private seedAt(start: number): {
    tip: Map<string, string>;
    lastCompaction?: TranscriptEventPayloads['compaction'];
  } {
    // Back from `start` until every lane that has events was met: the lanes' latest events are
    // most often close by, so this stays short however long the session is.
    const tip = new Map<string, string>();
    for (let i = start - 1; i >= 0 && tip.size < this.lanesSeen.size; i--) {
      const e = this.events[i]!;
      if (!tip.has(e.agentId)) tip.set(e.agentId, e.id);
    }
    let c = this.compactions.length - 1;
    while (c >= 0 && this.compactions[c]! >= start) c--;
    const compaction = c >= 0 ? this.events[this.compactions[c]!] : undefined;
    return compaction?.kind === 'compaction' ? { tip, lastCompaction: compaction.payload } : { tip };
  }

  /** Notes the lanes and compactions of the events from `from` on, as they now stand. */
  private noteEvents(from: number): void {
    while (this.compactions.length > 0 && this.compactions[this.compactions.length - 1]! >= from)
      this.compactions.pop();
    for (let i = from; i < this.events.length; i++) {
      const e = this.events[i]!;
      this.lanesSeen.add(e.agentId);
      if (e.kind === 'compaction') this.compactions.push(i);
      // One event for each capability it shows (see shownCapabilities), and the span of the times.
      const show = e.kind === 'request' ? (e.payload.usage ? 'usage' : 'request') : e.kind;
      if (
        (show === 'usage' || show === 'request' || show === 'reasoning' || show === 'compaction') &&
        !this.shows.has(show)
      )
        this.shows.set(show, e);
      if (e.timestamp !== undefined) {
        if (!this.shows.has('time')) this.shows.set('time', e);
        if (this.span.first === undefined || e.timestamp < this.span.first) this.span.first = e.timestamp;
        if (this.span.last === undefined || e.timestamp > this.span.last) this.span.last = e.timestamp;
      }
    }
  }

  private finish(): Transcript {
    const extra: SkippedRecord[] = [];
    for (const list of this.badRows.values()) appendAll(extra, list);
    for (const mid of this.waiting)
      for (const p of this.parts.get(mid) ?? [])
        extra.push({
          source: p.row.source,
          reason: 'a part of a message not in the session',
          recordType: 'part',
        });
    const skipped = this.skipped.concat(extra);
    const mainId = isWireId(this.id) ? this.id : '';
    // The session's facts from its rows alone, then what the events show, as kept (noteEvents).
    const t = sessionOf(mainId, this.sessions, this.spawns, [], skipped);
    const { first, last } = this.span;
    if (first !== undefined && (t.session.startedAt === undefined || first < t.session.startedAt))
      t.session.startedAt = first;
    if (last !== undefined) t.session.endedAt = last;
    t.capabilities = shownCapabilities([...this.shows.values()], ['subagents']);
    t.events = this.events;
    // The events are numbered as they come; a result always follows its call in the same part, so
    // none is an orphan (what finishTranscript would look for, over every event, at each read).
    const transcript: Transcript = {
      agent: this.agent,
      agents: t.agents,
      capabilities: t.capabilities,
      events: t.events,
      session: t.session,
      skipped: t.skipped,
    };
    if (t.agentVersion !== undefined) transcript.agentVersion = t.agentVersion;
    return transcript;
  }
}

const createdOf = (r: Row): number => {
  const time = isObject(r.data.time) ? r.data.time : {};
  return typeof time.created === 'number' ? time.created : 0;
};

/** A whole export orders messages by `time_created` and id; the translation then by their own time. */
const compareMessages = (a: HeldMessage, b: HeldMessage): number =>
  a.at - b.at || a.column - b.column || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0);

/**
 * A message whose rows may still be rewritten though others came after it: one with a tool not done
 * (a task waiting on its subagent). The last message of each session is open anyway (stillOpen).
 */
function isOpen(parts: readonly { row: Row }[]): boolean {
  return parts.some((p) => {
    const state = isObject(p.row.data.state) ? p.row.data.state : undefined;
    return state !== undefined && (state.status === 'pending' || state.status === 'running');
  });
}

/** Whether an event translated again says what it said before (its place in the row read aside). */
function sameEvent(a: TranscriptEvent, b: TranscriptEvent): boolean {
  if (a.id !== b.id || a.kind !== b.kind || a.agentId !== b.agentId) return false;
  const shape = (e: TranscriptEvent) =>
    JSON.stringify([
      e.parentId,
      e.timestamp,
      e.requestId,
      e.payload,
      e.invalid,
      e.source.sqlite?.table,
      e.source.sqlite?.rowid,
    ]);
  return shape(a) === shape(b);
}
