// Agents and the commands they run start as process trees of their own: a leader in a new session
// and process group, with a mark in its environment that every descendant inherits. A descendant
// can leave the group and the session (`setsid`) and lose its parent, but it keeps the mark, so
// ending a tree ends the group, the session and every marked process. The journal keeps a ledger
// of the trees it started; the next start ends those left running by a run that died.
import { readdirSync, readFileSync } from 'node:fs';
import type { ProcessTracker } from './agent-process.js';
import type { Journal } from './journal.js';

/** The variable that carries a tree's mark to every process in it. */
export const PROCESS_TREE_VARIABLE = 'CAIRN_PROCESS_TREE';

/** The process's start time in clock ticks since boot, from /proc; undefined where it cannot be read. */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** The fields of /proc/<pid>/stat after the command name (state is [0], session id [3]). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * The processes of these trees still running: those whose session is a leader's (only for leaders
 * known to be the same process, since a session id outlives its leader) and those carrying a mark.
 * Empty where /proc cannot be read.
 */
export function treeMembers(trees: readonly { sessionLeader?: number; mark: string }[]): number[] {
  const sessions = new Set(
    trees.flatMap((t) => (t.sessionLeader === undefined ? [] : [String(t.sessionLeader)])),
  );
  const marks = trees.flatMap((t) => (t.mark === '' ? [] : [`${PROCESS_TREE_VARIABLE}=${t.mark}`]));
  if (sessions.size === 0 && marks.length === 0) return [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    const fields = statFields(pid);
    // A zombie has nothing left to end.
    if (fields === undefined || fields[0] === 'Z') continue;
    if (sessions.has(fields[3]!) || (marks.length > 0 && carriesMark(pid, marks))) members.push(pid);
  }
  return members;
}

function carriesMark(pid: number, marks: readonly string[]): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
    return marks.some((m) => environ.includes(m));
  } catch {
    // Another user's process, or gone.
    return false;
  }
}

export function signalPids(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone in the meantime.
    }
  }
}

export function processLedger(journal: Journal): ProcessTracker {
  return {
    started: (pid, mark) => journal.recordProcess(pid, processStartTime(pid) ?? '', mark),
    ended: (pid) => journal.forgetProcess(pid),
  };
}

/** Ends the process trees a previous run left behind; returns how many processes it ended. */
export function reapLeftoverAgents(journal: Journal, log: (line: string) => void = () => {}): number {
  const trees = journal.processes();
  if (trees.length === 0) return 0;
  const leaders = trees.map(({ pid, started, mark }) => {
    const same = started !== '' && processStartTime(pid) === started;
    return { pid, same, mark, ...(same ? { sessionLeader: pid } : {}) };
  });
  const members = new Set(treeMembers(leaders));
  for (const leader of leaders) if (leader.same) members.add(leader.pid);
  for (const leader of leaders) {
    if (!leader.same) continue;
    try {
      process.kill(-leader.pid, 'SIGKILL');
    } catch {
      // Gone in the meantime.
    }
  }
  signalPids([...members], 'SIGKILL');
  if (members.size > 0) {
    log(
      `workstation: ended ${members.size} process(es) of agents and commands left running by an earlier run`,
    );
  }
  for (const { pid } of trees) journal.forgetProcess(pid);
  return members.size;
}
