// A pi session file read as it grows: each push translates the entries past the last one read, from
// the translation kept since, as a whole read of the same bytes would. pi appends whole entries and
// never rewrites one, so the only earlier events a new entry changes are those a compaction shadows.
import {
  fileEnd,
  type IncrementalTranslation,
  type SourceFile,
  type TranslatedSession,
  type TranslationDelta,
} from '../../adapter.js';
import { nextLineOffset, parsedLines } from '../../lines.js';
import type { Capability, TranscriptSession } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { shownCapabilities } from '../shared.js';
import { isPiHeader, piSessionId, stringField } from './records.js';
import { type FileRead, SessionTranslation, translateLine } from './translate.js';

export class PiTranslation implements IncrementalTranslation {
  private t: SessionTranslation | undefined;
  private path = '';
  /** Bytes read of the file, and the number of the next line. */
  private offset = 0;
  private nextLine = 1;
  /** The last line read had no newline after it: if it grows, what was read of it was not all. */
  private endsOpen = false;
  private readonly read: FileRead = { sawRecord: false };
  /** No line parsed yet named the lane: the first that does may name it otherwise. */
  private unnamed = false;
  private lane = '';
  /** What the events so far show, kept as they come rather than found again in every snapshot. */
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  private shown: Capability[] = [];

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    const file = files[0];
    if (file === undefined) return ok(this.t ? 'rewrite' : { from: 0, added: [], updated: [], revised: [] });
    if (this.t) {
      const end = fileEnd(file);
      if (file.path !== this.path || end < this.offset || (this.endsOpen && end > this.offset))
        return ok('rewrite');
    }
    const lines = [...parsedLines(file, this.offset, this.nextLine)];
    // The lane is named by the session's id, from the header: the file's first line that parses.
    const first = lines.find((l) => l.parsed.ok)?.parsed;
    if (this.t && this.unnamed && first) return ok('rewrite');
    if (!this.t) {
      const header = first?.ok && isPiHeader(first.value) ? first.value : undefined;
      this.lane = piSessionId(file.path, header ? stringField(header, 'id') : undefined);
      this.t = new SessionTranslation(this.lane);
      this.path = file.path;
      this.unnamed = first === undefined;
    }
    const t = this.t;
    const from = t.events.length;
    const base = file.start ?? 0;
    for (const { span, parsed } of lines) {
      const bytes = file.data.subarray(span.offset - base, span.offset - base + span.length);
      const failed = translateLine(t, 0, file, span, parsed, bytes, this.read);
      if (failed) return failed;
    }
    t.settle();
    const last = lines.at(-1)?.span;
    if (last) {
      this.offset = nextLineOffset(file, last);
      this.nextLine = last.line + 1;
      this.endsOpen = last.unterminated;
    }
    const added = t.events.slice(from);
    for (const e of added) {
      if (e.timestamp === undefined) continue;
      if (this.startedAt === undefined || e.timestamp < this.startedAt) this.startedAt = e.timestamp;
      if (this.endedAt === undefined || e.timestamp > this.endedAt) this.endedAt = e.timestamp;
    }
    this.shown = shownCapabilities(added, [
      ...this.shown,
      ...(t.sawCompactionTokens ? (['compactionTokens'] as const) : []),
    ]);
    return ok({ from, added, updated: t.takeMarked(), revised: [] });
  }

  snapshot(): TranslatedSession {
    const t = this.t ?? new SessionTranslation('');
    // The members in the order a whole read gives them.
    const session: TranscriptSession = { id: this.lane };
    if (t.cwd !== undefined) session.cwd = t.cwd;
    if (this.startedAt !== undefined) session.startedAt = this.startedAt;
    if (this.endedAt !== undefined) session.endedAt = this.endedAt;
    if (t.title !== undefined) session.title = t.title;
    return {
      agents: [{ id: this.lane }],
      capabilities: this.shown,
      events: t.events,
      session,
      skipped: t.skipped,
    };
  }
}
