// A Copilot CLI events file read as it grows: each push translates the events past the last one
// read, from the translation kept since, as a whole read of the same bytes would. Two things look
// beyond the event at hand, and are patched or read again:
// - a repeated shutdown takes the usage of the earlier one's requests: those are updated;
// - an execution start makes a call only when no message asks for it anywhere in the file: a
//   message asking for a call that a start already made, or a session named by its start event
//   after events were made, reads the file again.
import type {
  IncrementalTranslation,
  SourceFile,
  TranslatedSession,
  TranslationDelta,
} from '../../adapter.js';
import type { Capability } from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { AppendedLines, EventsSeen, type FileRead } from '../appended-lines.js';
import {
  capabilitiesOf,
  copilotLane,
  copilotSessionId,
  noteCapabilities,
  parseLines,
  SessionTranslation,
  translatedSession,
  translateLine,
} from './translate.js';

export class CopilotTranslation implements IncrementalTranslation {
  private t: SessionTranslation | undefined;
  /** The session's id as the events so far give it (see copilotSessionId). */
  private id = '';
  private readonly lines = new AppendedLines();
  private readonly read: FileRead = { sawRecord: false };
  private readonly seen = new EventsSeen();
  private readonly shows = new Set<Capability>();

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    const file = files[0];
    if (file === undefined) return ok(this.t ? 'rewrite' : { from: 0, added: [], updated: [], revised: [] });
    if (!this.lines.goesOn(file)) return ok('rewrite');
    if (!this.t) {
      this.t = new SessionTranslation(copilotLane(file.path));
      this.id = this.t.main;
    }
    const t = this.t;
    const from = t.events.length;
    const spans = this.lines.lines(file);
    const asked: string[] = [];
    const lines = parseLines(file, spans, t.requested, asked);
    if (asked.some((c) => t.startedCalls.has(c))) return ok('rewrite');
    for (const line of lines) {
      const failed = translateLine(t, 0, file, line, this.read);
      if (failed) return failed;
    }
    const id = copilotSessionId(t);
    if (id !== this.id && from > 0) return ok('rewrite');
    this.id = id;
    this.lines.read(file, spans);
    const added = t.events.slice(from);
    if (id !== t.main) for (const e of added) if (e.agentId === t.main) e.agentId = id;
    this.seen.add(added);
    noteCapabilities(added, this.shows);
    const changed = t.takeChanged();
    return ok({ from, added, updated: changed, revised: changed });
  }

  snapshot(): TranslatedSession {
    const t = this.t ?? new SessionTranslation('');
    const session = this.seen.session(this.id, t.cwd, undefined);
    return translatedSession(t, this.id, session, capabilitiesOf(t, this.shows));
  }
}
