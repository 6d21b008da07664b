// Agents run in process groups of their own, so a workstation killed without warning leaves them
// running. The journal keeps a ledger of the groups it started; the next start ends those whose
// leader is still the same process (same pid and the same start time, so a reused pid is spared).
import { readFileSync } from 'node:fs';
import type { ProcessTracker } from './agent-process.js';
import type { Journal } from './journal.js';

/** The process's start time in clock ticks since boot, from /proc; undefined where it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

export function processLedger(journal: Journal): ProcessTracker {
  return {
    started: (pid) => journal.recordProcess(pid, processStartTime(pid) ?? ''),
    ended: (pid) => journal.forgetProcess(pid),
  };
}

/** Ends the agent groups a previous run left behind; returns how many it ended. */
export function reapLeftoverAgents(journal: Journal, log: (line: string) => void = () => {}): number {
  let ended = 0;
  for (const { pid, started } of journal.processes()) {
    const now = processStartTime(pid);
    if (now !== undefined && now === started && started !== '') {
      try {
        process.kill(-pid, 'SIGKILL');
        ended += 1;
        log(`workstation: ended agent process group ${pid}, left running by an earlier run`);
      } catch {
        // Gone in the meantime.
      }
    }
    journal.forgetProcess(pid);
  }
  return ended;
}
