// A session's transcript kept up to date as its files grow: each push translates only the records
// past where the last one stopped, and says what it added and changed. Reading a session whole is
// one push of every file.
import type { SessionAdapter, SourceFile, TranslatedSession } from './adapter.js';
import { finishTranscript } from './load.js';
import type { Transcript, TranscriptEvent, TranscriptEventOf } from './model.js';
import { partCut } from './read.js';
import { ok, type Result, type UnknownFormatGeneration } from './result.js';

/** What one push did to the transcript. */
export interface TranscriptDelta {
  /**
   * The session was translated again from the start (its files changed other than by appends,
   * or the adapter cannot continue): what was known of it before may not hold.
   */
  rewritten: boolean;
  /** Index of the first event that is new or moved; events before it kept their place and seq. */
  from: number;
  /** New events, in transcript order. */
  added: TranscriptEvent[];
  /** Earlier events changed in place (a request's usage, a compaction's shadow, an orphan found its call). */
  updated: TranscriptEvent[];
  /** Those of `updated` whose payload now reads differently (a message found to be a prompt, a
   * request's usage, a compaction's summary, a result's call found): what items and summaries are
   * read from. The others only gained a mark that neither reads (a compaction's shadow, their
   * request). */
  revised: TranscriptEvent[];
}

export class Translator {
  private inner: ReturnType<NonNullable<SessionAdapter['incremental']>> | undefined;
  private translated: TranslatedSession | undefined;
  private readonly callIds = new Set<string>();
  /** Results whose call has not been seen, by call id. */
  private readonly orphans = new Map<string, TranscriptEventOf<'tool_result'>[]>();
  /** Events let go of from the head of the list (see letGo): its first event's seq. */
  private dropped = 0;

  constructor(private readonly adapter: SessionAdapter) {}

  /** Brings the transcript up to what `files` (the session's files, main first) hold now. */
  push(files: readonly SourceFile[]): Result<TranscriptDelta, UnknownFormatGeneration> {
    const continued = this.continued(files);
    return continued === 'rewrite' ? this.whole(files) : continued;
  }

  /**
   * push, for files that may hold only their bytes past where the last push stopped (`start`):
   * 'rewrite' when the translation cannot go on from them, and only a push of the whole files
   * brings it up to date. The translation is then empty, as before a first push.
   */
  pushTail(files: readonly SourceFile[]): Result<TranscriptDelta | 'rewrite', UnknownFormatGeneration> {
    const continued = this.continued(files);
    if (continued !== 'rewrite') return continued;
    this.inner = undefined;
    this.translated = undefined;
    return ok('rewrite');
  }

  /** The push that goes on from the saved state; 'rewrite' when there is none to go on from. */
  private continued(
    files: readonly SourceFile[],
  ): Result<TranscriptDelta, UnknownFormatGeneration> | 'rewrite' {
    if (!this.inner) return 'rewrite';
    const pushed = this.inner.push(files);
    if (!pushed.ok) return this.failed(pushed);
    if (pushed.value === 'rewrite') return 'rewrite';
    this.translated = this.inner.snapshot();
    const { from, added, revised } = pushed.value;
    const events = this.translated.events;
    for (let i = from; i < events.length; i++) events[i]!.seq = this.dropped + i;
    const updated = new Set(pushed.value.updated);
    const found = this.markOrphans(added, updated);
    for (const e of added) updated.delete(e);
    return ok({
      rewritten: false,
      from,
      added,
      updated: [...updated],
      revised: [...revised, ...found].filter((e) => updated.has(e)),
    });
  }

  /**
   * Lets go of the first `count` events of the list, when the adapter's translation can: a reader in
   * parts that is done with them keeps memory for the rest only. Later deltas' `from` then counts in
   * the shortened list, while seq goes on counting the session's events. False when it cannot.
   */
  letGo(count: number): boolean {
    if (!this.inner?.letGo) return false;
    if (count > 0) {
      this.inner.letGo(count);
      this.dropped += count;
    }
    return true;
  }

  /** The transcript as of the last push; its event list is the one later pushes extend. */
  snapshot(): Transcript {
    const t = this.translated ?? {
      agents: [],
      capabilities: [],
      events: [],
      session: { id: '' },
      skipped: [],
    };
    const transcript: Transcript = {
      agent: this.adapter.id,
      agents: t.agents,
      capabilities: t.capabilities,
      events: t.events,
      session: t.session,
      skipped: t.skipped,
    };
    if (t.agentVersion !== undefined) transcript.agentVersion = t.agentVersion;
    return transcript;
  }

  /** Every file read from the start, by the adapter's incremental translation when it has one. */
  private whole(files: readonly SourceFile[]): Result<TranscriptDelta, UnknownFormatGeneration> {
    const part = files.find((f) => (f.start ?? 0) > 0);
    if (part) throw new RangeError(`${part.path}: translating from the start needs the file from its start`);
    this.callIds.clear();
    this.orphans.clear();
    this.dropped = 0;
    this.inner = this.adapter.incremental?.();
    if (this.inner) {
      const pushed = this.inner.push(files);
      if (!pushed.ok) return this.failed(pushed);
      // A first push has nothing before it to rewrite; an adapter that says so anyway is read whole.
      if (pushed.value !== 'rewrite') {
        this.translated = this.inner.snapshot();
        this.translated.events.forEach((e, i) => {
          e.seq = i;
        });
        this.markOrphans(this.translated.events, new Set());
        return ok({ rewritten: true, from: 0, added: [...this.translated.events], updated: [], revised: [] });
      }
      this.inner = undefined;
    }
    const translated = this.adapter.translate(files);
    if (!translated.ok) return this.failed(translated);
    this.translated = finishTranscript(this.adapter.id, translated.value);
    return ok({ rewritten: true, from: 0, added: [...this.translated.events], updated: [], revised: [] });
  }

  private failed<E>(result: { ok: false; error: E }): { ok: false; error: E } {
    this.inner = undefined;
    this.translated = undefined;
    return result;
  }

  /**
   * Marks results whose call is nowhere in the transcript, as finishTranscript does, and unmarks
   * those whose call has now arrived (adding them to `updated`); answers those unmarked. They read
   * differently: an item that cannot pair such a result (its call on another lane) shows its
   * payload whole.
   */
  private markOrphans(added: readonly TranscriptEvent[], updated: Set<TranscriptEvent>): TranscriptEvent[] {
    const found: TranscriptEvent[] = [];
    for (const e of added) {
      if (e.kind !== 'tool_call') continue;
      this.callIds.add(e.payload.callId);
      const waiting = this.orphans.get(e.payload.callId);
      if (!waiting) continue;
      this.orphans.delete(e.payload.callId);
      for (const r of waiting) {
        delete r.payload.orphan;
        updated.add(r);
        found.push(r);
      }
    }
    for (const e of added) {
      if (e.kind !== 'tool_result' || this.callIds.has(e.payload.callId)) continue;
      e.payload.orphan = true;
      const waiting = this.orphans.get(e.payload.callId);
      if (waiting) waiting.push(e);
      else this.orphans.set(e.payload.callId, [e]);
    }
    return found;
  }
}

/**
 * The files as a read in parts takes them in turn: the main file (its bytes as read, decompressed
 * when it was compressed) cut after a line every `partBytes`, its other files joining whole at the
 * end (the last part is `files` itself).
 */
export function lineParts(
  files: readonly SourceFile[],
  partBytes: number,
  keepWithNext?: (line: Uint8Array) => boolean,
): (readonly SourceFile[])[] {
  const main = files[0];
  const parts: SourceFile[][] = [];
  if (!main) return [files];
  for (let from = 0; from + partBytes < main.data.length; ) {
    const window = main.data.subarray(from, from + partBytes);
    let cut = from + partCut(window, window.length, keepWithNext);
    // One line longer than a part: the cut goes after it.
    if (cut <= from) cut = main.data.indexOf(10, from + partBytes) + 1;
    if (cut === 0 || cut >= main.data.length) break;
    parts.push([{ ...main, data: main.data.subarray(0, cut) }]);
    from = cut;
  }
  return [...parts, files];
}
