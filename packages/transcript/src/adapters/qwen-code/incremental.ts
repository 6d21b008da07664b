// A Qwen Code session file read as it grows: each push translates the records past the last one
// read, from the translation kept since, as a whole read of the same bytes would. A record changes
// no event made before it; only a session whose file name is no id is named by its records, and
// when that name comes after events were made, the session is read again.
import type {
  IncrementalTranslation,
  SourceFile,
  TranslatedSession,
  TranslationDelta,
} from '../../adapter.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { AppendedLines, EventsSeen, type FileRead } from '../appended-lines.js';
import { qwenLane, SessionTranslation, translateLine } from './translate.js';

export class QwenTranslation implements IncrementalTranslation {
  private t: SessionTranslation | undefined;
  /** The lane the file's name gives (the events are made on it), and the one they are shown on. */
  private named = '';
  private lane = '';
  private readonly lines = new AppendedLines();
  private readonly read: FileRead = { sawRecord: false };
  private readonly seen = new EventsSeen();

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    const file = files[0];
    if (file === undefined) return ok(this.t ? 'rewrite' : { from: 0, added: [], updated: [], revised: [] });
    if (!this.lines.goesOn(file)) return ok('rewrite');
    if (!this.t) {
      this.named = qwenLane(file.path, undefined);
      this.lane = this.named;
      this.t = new SessionTranslation(this.named);
    }
    const t = this.t;
    const from = t.events.length;
    const lines = this.lines.lines(file);
    for (const span of lines) {
      const failed = translateLine(t, 0, file, span, this.read);
      if (failed) return failed;
    }
    const lane = qwenLane(file.path, t.recordedId);
    if (lane !== this.lane && from > 0) return ok('rewrite');
    this.lane = lane;
    this.lines.read(file, lines);
    const added = t.events.slice(from);
    if (lane !== this.named) for (const e of added) e.agentId = lane;
    this.seen.add(added);
    return ok({ from, added, updated: [], revised: [] });
  }

  snapshot(): TranslatedSession {
    const t = this.t ?? new SessionTranslation('');
    const out: TranslatedSession = {
      agents: [{ id: this.lane }],
      capabilities: this.seen.capabilities,
      events: t.events,
      session: this.seen.session(this.lane, t.cwd, t.title),
      skipped: t.skipped,
    };
    if (t.version !== undefined) out.agentVersion = t.version;
    return out;
  }
}
