// A pi session file read as it grows: each push translates the entries past the last one read, from
// the translation kept since, as a whole read of the same bytes would. pi appends whole entries and
// never rewrites one, so the only earlier events a new entry changes are those a compaction shadows.
import type {
  IncrementalTranslation,
  SourceFile,
  TranslatedSession,
  TranslationDelta,
} from '../../adapter.js';
import { parseJsonLine } from '../../lines.js';
import type { TranscriptSession } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { AppendedLines, EventsSeen } from '../appended-lines.js';
import { isPiHeader, piSessionId, stringField } from './records.js';
import { type FileRead, SessionTranslation, translateLine } from './translate.js';

export class PiTranslation implements IncrementalTranslation {
  private t: SessionTranslation | undefined;
  private lane = '';
  private readonly lines = new AppendedLines();
  private readonly read: FileRead = { sawRecord: false };
  /** No line parsed yet named the lane: the first that does may name it otherwise. */
  private unnamed = false;
  private readonly seen = new EventsSeen();

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    const file = files[0];
    if (file === undefined) return ok(this.t ? 'rewrite' : { from: 0, added: [], updated: [], revised: [] });
    if (!this.lines.goesOn(file)) return ok('rewrite');
    const lines = this.lines.lines(file).map((span) => ({ span, parsed: parseJsonLine(file.data, span) }));
    // The lane is named by the session's id, from the header: the file's first line that parses.
    const first = lines.find((l) => l.parsed.ok)?.parsed;
    if (this.t && this.unnamed && first) return ok('rewrite');
    if (!this.t) {
      const header = first?.ok && isPiHeader(first.value) ? first.value : undefined;
      this.lane = piSessionId(file.path, header ? stringField(header, 'id') : undefined);
      this.t = new SessionTranslation(this.lane);
      this.unnamed = first === undefined;
    }
    const t = this.t;
    const from = t.events.length;
    const base = file.start ?? 0;
    for (const { span, parsed } of lines) {
      const bytes = file.data.subarray(span.offset, span.offset + span.length);
      const failed = translateLine(
        t,
        0,
        file,
        { ...span, offset: span.offset + base },
        parsed,
        bytes,
        this.read,
      );
      if (failed) return failed;
    }
    t.settle();
    this.lines.read(
      file,
      lines.map((l) => l.span),
    );
    const added = t.events.slice(from);
    this.seen.add(added, t.sawCompactionTokens ? ['compactionTokens'] : []);
    return ok({ from, added, updated: t.takeMarked(), revised: [] });
  }

  snapshot(): TranslatedSession {
    const t = this.t ?? new SessionTranslation('');
    // The members in the order a whole read gives them.
    const session: TranscriptSession = { id: this.lane };
    if (t.cwd !== undefined) session.cwd = t.cwd;
    this.seen.span(session);
    if (t.title !== undefined) session.title = t.title;
    return {
      agents: [{ id: this.lane }],
      capabilities: this.seen.capabilities,
      events: t.events,
      session,
      skipped: t.skipped,
    };
  }
}
