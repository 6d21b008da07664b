// How each install started from a page is going, for the page to ask while it waits: the phase,
// npm's latest lines, and how it ended. One entry per workstation and agent; a new install of the
// same agent starts its entry afresh.
import type { ChatAgentInstallProgressResponse, InstallProgress } from '@cairn/protocol';

/** npm's lines an entry keeps: enough to see it move, not its whole log. */
const KEPT_LINES = 20;

interface Entry {
  phase: ChatAgentInstallProgressResponse['phase'];
  lines: string[];
  error?: string;
}

export class InstallProgressBoard {
  private readonly entries = new Map<string, Entry>();

  start(
    workstation: string,
    agent: string,
  ): { step(progress: InstallProgress): void; end(error?: string): void } {
    const entry: Entry = { phase: 'preparing', lines: [] };
    this.entries.set(`${workstation}\u0000${agent}`, entry);
    return {
      step: (progress) => {
        entry.phase = progress.phase;
        if (typeof progress.line === 'string' && progress.line !== '') {
          entry.lines.push(progress.line);
          if (entry.lines.length > KEPT_LINES) entry.lines.splice(0, entry.lines.length - KEPT_LINES);
        }
      },
      end: (error) => {
        entry.phase = error === undefined ? 'done' : 'failed';
        if (error !== undefined) entry.error = error;
      },
    };
  }

  of(workstation: string, agent: string): ChatAgentInstallProgressResponse {
    const entry = this.entries.get(`${workstation}\u0000${agent}`);
    if (entry === undefined) return { phase: null, lines: [] };
    return { phase: entry.phase, lines: [...entry.lines], ...(entry.error ? { error: entry.error } : {}) };
  }
}
