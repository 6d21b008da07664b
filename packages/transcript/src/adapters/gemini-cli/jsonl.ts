// An append-only JSONL session file (Gemini CLI since 2026-04), replayed the way the CLI loads it:
// - line 1 is the session metadata (a session_meta system event);
// - a message record is re-appended in full each time it changes: the last write of an id is
//   the message, and it keeps the place of the id's first write; earlier writes are skipped;
// - `{"$rewindTo": id}` drops that message and every later one (or all, when the id is unknown):
//   their lines are skipped as 'rewound', the rewind itself is a system event;
// - `{"$set": {...}}` patches the metadata (skipped, read into the session); a `$set.messages`
//   is a checkpoint that replaces the whole history (compression, masking, summaries): it is a
//   compaction event, the messages it dropped are shadowed by it, and messages that exist only
//   inside it are synthetic events pointing at its line. A checkpoint before the session's first
//   message of its own drops nothing the person saw: the CLI setting up its context. It is no
//   compaction, and the messages it sets are read as ordinary ones (its session context).
import { linePointer, type SourceFile } from '../../adapter.js';
import { type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type { TranscriptEvent, TranscriptEventKind, TranscriptEventPayloads } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import type { EventIds } from './ids.js';
import { EMPTY_MESSAGE, messageEvents } from './messages.js';
import {
  isKnownJsonlRecord,
  isMetadataRecord,
  isObject,
  type JsonObject,
  mergeMeta,
  partsText,
  rewindTo,
  type SessionMeta,
  stringField,
  toMillis,
} from './records.js';
import type { TranslatedFile } from './translated-file.js';

export const SUPERSEDED = 'superseded by a later write of the same message';

interface Write {
  span: LineSpan;
  value: unknown;
  /** A line of its own; false for a message carried inside a checkpoint line. */
  standalone: boolean;
}

/** One life of a message id in the history: from its first write until a rewind or a checkpoint drops it. */
interface Incarnation {
  writes: Write[];
  fromCheckpoint: boolean;
  /** Set by a checkpoint at the start of the session, before any message of its own. */
  setUp?: boolean;
  rewound: boolean;
  shadowedBy?: string;
}

type Entry =
  | { kind: 'message'; inc: Incarnation }
  | { kind: 'meta' | 'rewind' | 'unknown' | 'setup'; span: LineSpan; value: unknown }
  | {
      kind: 'checkpoint';
      span: LineSpan;
      set: JsonObject;
      id: string;
      kept: number;
      removed: number;
      added: Incarnation[];
    };

export function translateJsonl(
  file: SourceFile,
  fileIndex: number,
  ids: EventIds,
): Result<TranslatedFile, UnknownFormatGeneration> {
  const out: TranslatedFile = { meta: {}, events: [], skipped: [] };
  const skip = (span: LineSpan, reason: string, recordType?: string) =>
    out.skipped.push(
      recordType === undefined
        ? { source: linePointer(file, span), reason }
        : { source: linePointer(file, span), reason, recordType },
    );
  const entries: Entry[] = [];
  let live = new Map<string, Incarnation>();
  let sawRecord = false;

  for (const span of splitLines(file.data)) {
    const parsed = parseJsonLine(file.data, span);
    if (!parsed.ok) {
      skip(span, parsed.reason);
      continue;
    }
    const v = parsed.value;
    if (!sawRecord) {
      sawRecord = true;
      if (!isObject(v) || !isKnownJsonlRecord(v)) {
        const detail = 'the first record is neither session metadata nor a message record';
        return err(unknownFormatGeneration(file.path, span.line, detail));
      }
    }
    if (!isObject(v)) {
      entries.push({ kind: 'unknown', span, value: v });
    } else if (typeof v.$rewindTo === 'string') {
      rewindTo(live, v.$rewindTo, (inc) => {
        inc.rewound = true;
      });
      entries.push({ kind: 'rewind', span, value: v });
    } else if (typeof v.id === 'string') {
      const inc = live.get(v.id);
      if (inc) inc.writes.push({ span, value: v, standalone: true });
      else {
        const fresh: Incarnation = {
          writes: [{ span, value: v, standalone: true }],
          fromCheckpoint: false,
          rewound: false,
        };
        live.set(v.id, fresh);
        entries.push({ kind: 'message', inc: fresh });
      }
    } else if (isObject(v.$set)) {
      mergeMeta(out.meta, v.$set);
      if (!Array.isArray(v.$set.messages)) {
        skip(span, 'metadata update', '$set');
        continue;
      }
      const atStart = [...live.values()].every((inc) => inc.setUp === true);
      const next = new Map<string, Incarnation>();
      const added: Incarnation[] = [];
      v.$set.messages.forEach((msg: unknown, i: number) => {
        const key = isObject(msg) && typeof msg.id === 'string' ? msg.id : `${span.line}#${i}`;
        if (next.has(key)) return;
        const carried = live.get(key);
        if (carried) next.set(key, carried);
        else {
          const inc: Incarnation = {
            writes: [{ span, value: msg, standalone: false }],
            fromCheckpoint: !atStart,
            ...(atStart ? { setUp: true } : {}),
            rewound: false,
          };
          next.set(key, inc);
          added.push(inc);
        }
      });
      if (atStart) {
        // The set-up messages an earlier start checkpoint made and this one leaves out are gone.
        for (const [key, inc] of live) if (!next.has(key)) inc.rewound = true;
        live = next;
        entries.push({ kind: 'setup', span, value: v });
        for (const inc of added) entries.push({ kind: 'message', inc });
        continue;
      }
      const id = ids.make(`compaction:${fileIndex}:${span.line}`, `${fileIndex}:${span.offset}`);
      let removed = 0;
      for (const [key, inc] of live) {
        if (next.has(key)) continue;
        inc.shadowedBy = id;
        removed++;
      }
      live = next;
      entries.push({
        kind: 'checkpoint',
        span,
        set: v.$set,
        id,
        kept: next.size - added.length,
        removed,
        added,
      });
      for (const inc of added) entries.push({ kind: 'message', inc });
    } else if (isMetadataRecord(v)) {
      mergeMeta(out.meta, v);
      entries.push({ kind: 'meta', span, value: v });
    } else {
      entries.push({ kind: 'unknown', span, value: v });
    }
  }

  const single = <K extends TranscriptEventKind>(
    kind: K,
    base: string,
    span: LineSpan,
    payload: TranscriptEventPayloads[K],
    timestamp?: number,
  ): void => {
    const e = {
      id: ids.make(base, `${fileIndex}:${span.offset}`),
      seq: 0,
      kind,
      agentId: '',
      source: linePointer(file, span),
      payload,
    } as TranscriptEvent;
    if (timestamp !== undefined) e.timestamp = timestamp;
    out.events.push(e);
  };

  const setups: LineSpan[] = [];
  for (const entry of entries) {
    if (entry.kind === 'message') {
      const { inc } = entry;
      const last = inc.writes.at(-1)!;
      const type = isObject(last.value) ? stringField(last.value, 'type') : undefined;
      for (const w of inc.writes) {
        if (!w.standalone) continue;
        if (w !== last) skip(w.span, SUPERSEDED, type);
        else if (inc.rewound) skip(w.span, 'rewound', type);
      }
      if (inc.rewound) continue;
      const place = {
        source: linePointer(file, last.span),
        where: `${fileIndex}:${last.span.offset}`,
        fromCheckpoint: inc.fromCheckpoint,
        ...(inc.shadowedBy !== undefined ? { shadowedBy: inc.shadowedBy } : {}),
      };
      const events = messageEvents(last.value, place, ids);
      out.events.push(...events);
      // A message with nothing in it (no text, thoughts, calls or tokens) is still accounted for.
      if (events.length === 0 && last.standalone) skip(last.span, EMPTY_MESSAGE, type);
    } else if (entry.kind === 'meta') {
      const meta: SessionMeta = {};
      mergeMeta(meta, entry.value as JsonObject);
      single('system', `${meta.sessionId ?? 'session'}:meta`, entry.span, {
        type: 'session_meta',
        ...meta,
        fields: entry.value,
      });
    } else if (entry.kind === 'rewind') {
      const target = (entry.value as { $rewindTo: string }).$rewindTo;
      single('system', `rewind:${fileIndex}:${entry.span.line}`, entry.span, {
        type: 'rewind',
        messageId: target,
        text: `rewound to before message ${target}`,
      });
    } else if (entry.kind === 'setup') {
      setups.push(entry.span);
    } else if (entry.kind === 'unknown') {
      const recordType = isObject(entry.value) ? (stringField(entry.value, 'type') ?? '') : '';
      single('unknown', `unknown:${fileIndex}:${entry.span.line}`, entry.span, {
        recordType,
        raw: entry.value,
      });
    } else if (entry.kind === 'checkpoint') {
      const payload: TranscriptEventPayloads['compaction'] = {
        trigger: 'history_checkpoint',
        kept: entry.kept,
        removed: entry.removed,
        added: entry.added.length,
      };
      const summary = entry.added
        .map((inc) => inc.writes[0]!.value)
        .filter((m) => isObject(m) && m.type === 'user')
        .map((m) => partsText((m as JsonObject).content))
        .filter((t) => t !== '')
        .join('\n\n');
      if (summary !== '') payload.summary = summary;
      const e: TranscriptEvent = {
        id: entry.id,
        seq: 0,
        kind: 'compaction',
        agentId: '',
        source: linePointer(file, entry.span),
        payload,
      };
      const ts = toMillis(entry.set.lastUpdated);
      if (ts !== undefined) e.timestamp = ts;
      out.events.push(e);
    }
  }
  // A start checkpoint whose messages made no event is still accounted for.
  for (const span of setups) {
    if (!out.events.some((e) => e.source.line === span.line && e.source.file === file.path))
      skip(span, 'history set up at the start of the session', '$set');
  }
  return ok(out);
}
