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
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { AppendedLines, EventsSeen, type FileRead } from '../appended-lines.js';
import { isPiHeader, piSessionId, stringField } from './records.js';
import { SessionTranslation, translateLine } from './translate.js';

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
    const lines = this.lines.lines(file);
    // The lane is named by the session's id, from the header: the file's first line that parses.
    let first: { at: number; value: unknown } | undefined;
    if (!this.t || this.unnamed)
      for (const [at, span] of lines.entries()) {
        const parsed = parseJsonLine(file.data, span);
        if (!parsed.ok) continue;
        first = { at, value: parsed.value };
        break;
      }
    if (this.t && this.unnamed && first) return ok('rewrite');
    if (!this.t) {
      const header = first && isPiHeader(first.value) ? first.value : undefined;
      this.lane = piSessionId(file.path, header ? stringField(header, 'id') : undefined);
      this.t = new SessionTranslation(this.lane);
      this.unnamed = first === undefined;
    }
    const t = this.t;
    // The last read's entries are hashed only now, and this read's bytes are kept for the next (a
    // copy: the caller may read its next bytes into the same buffer). A session read once, as a
    // whole read is, hashes nothing: hashing every line cost a sixth of the translation.
    t.settle();
    const kept = new Uint8Array(file.data);
    const from = t.events.length;
    const base = file.start ?? 0;
    for (const [at, span] of lines.entries()) {
      const parsed =
        at === first?.at ? { ok: true as const, value: first.value } : parseJsonLine(file.data, span);
      const line = { ...span, offset: span.offset + base };
      const failed = translateLine(t, 0, file, line, parsed, { data: kept, at: span.offset }, this.read);
      if (failed) return failed;
    }
    this.lines.read(file, lines);
    const added = t.events.slice(from);
    this.seen.add(added, t.sawCompactionTokens ? ['compactionTokens'] : []);
    return ok({ from, added, updated: t.takeMarked(), revised: [] });
  }

  snapshot(): TranslatedSession {
    const t = this.t ?? new SessionTranslation('');
    return {
      agents: [{ id: this.lane }],
      capabilities: this.seen.capabilities,
      events: t.events,
      session: this.seen.session(this.lane, t.cwd, t.title),
      skipped: t.skipped,
    };
  }
}
