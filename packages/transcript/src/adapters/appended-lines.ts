// What a translation of a one-file JSONL session keeps between reads to go on from where it stopped:
// how far it read the file, and what its events so far show of the session (its times and
// capabilities), so that neither is found again from the start at every read.
import { fileEnd, type SourceFile } from '../adapter.js';
import { type LineSpan, nextLineOffset, splitLines } from '../lines.js';
import type { Capability, TranscriptEvent, TranscriptSession } from '../model.js';
import { shownCapabilities } from './shared.js';

export class AppendedLines {
  private path: string | undefined;
  /** Bytes read of the file, and the number of the next line. */
  private offset = 0;
  private nextLine = 1;
  /** The last line read had no newline after it: if it grows, what was read of it was not all. */
  private endsOpen = false;

  /** Whether `file` is the one read so far and only grew past what was read; true before a first read. */
  goesOn(file: SourceFile): boolean {
    if (this.path === undefined) return true;
    const end = fileEnd(file);
    return file.path === this.path && end >= this.offset && !(this.endsOpen && end > this.offset);
  }

  /** The lines of `file` past what was read, as spans in `file.data` (numbered in the file). */
  lines(file: SourceFile): LineSpan[] {
    return [...splitLines(file.data, this.offset - (file.start ?? 0), this.nextLine)];
  }

  /** Notes `lines` (from `lines(file)`) as read. */
  read(file: SourceFile, lines: readonly LineSpan[]): void {
    this.path = file.path;
    const last = lines.at(-1);
    if (!last) return;
    const base = file.start ?? 0;
    this.offset = nextLineOffset(file, { ...last, offset: last.offset + base });
    this.nextLine = last.line + 1;
    this.endsOpen = last.unterminated;
  }
}

/** What is read of a file from line to line: whether its first record was met (the one a
 * translation checks the file's format by). */
export interface FileRead {
  sawRecord: boolean;
}

/** The times and capabilities a session's events show, gathered as the events come. */
export class EventsSeen {
  private startedAt: number | undefined;
  private endedAt: number | undefined;
  capabilities: Capability[] = [];

  add(events: readonly TranscriptEvent[], also: readonly Capability[] = []): void {
    for (const e of events) {
      if (e.timestamp === undefined) continue;
      if (this.startedAt === undefined || e.timestamp < this.startedAt) this.startedAt = e.timestamp;
      if (this.endedAt === undefined || e.timestamp > this.endedAt) this.endedAt = e.timestamp;
    }
    this.capabilities = shownCapabilities(events, [...this.capabilities, ...also]);
  }

  /** The session as a whole read gives it (its members in that order): the times as spanEvents
   * finds them among every event. */
  session(id: string, cwd: string | undefined, title: string | undefined): TranscriptSession {
    const session: TranscriptSession = { id };
    if (cwd !== undefined) session.cwd = cwd;
    if (this.startedAt !== undefined) session.startedAt = this.startedAt;
    if (this.endedAt !== undefined) session.endedAt = this.endedAt;
    if (title !== undefined) session.title = title;
    return session;
  }
}
