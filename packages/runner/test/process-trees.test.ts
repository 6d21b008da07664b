// Dev processes end with the session and with the workstation, even one that left its process
// group and session with `setsid` and lost its parent: the whole tree goes, on a close and on the
// reaping that follows a workstation which died without cleaning up.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentProcess } from '../src/agent-process.js';
import { Journal } from '../src/journal.js';
import { processLedger, reapLeftoverAgents } from '../src/process-ledger.js';
import { Terminals } from '../src/terminals.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-trees-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie waiting for its parent is gone for this purpose.
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(test: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !test(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!test()) throw new Error(`timed out waiting for ${what}`);
}

/** Pids the escaped processes wrote, once both have. */
async function escapedPids(dir: string): Promise<number[]> {
  const files = ['forked.pid', 'detached.pid'].map((f) => join(dir, f));
  await until(
    () => files.every((f) => existsSync(f) && readFileSync(f, 'utf8').trim() !== ''),
    'the escapes',
  );
  const pids = files.map((f) => Number(readFileSync(f, 'utf8').trim()));
  // However the test ends, nothing it started outlives it.
  cleanups.push(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return pids;
}

/** Two ways out: `setsid -f` (forks, the parent exits at once) and `setsid` in a background job. */
const ESCAPES =
  `setsid -f sh -c 'echo $$ > forked.pid; exec sleep 1000'; ` +
  `setsid sh -c 'echo $$ > detached.pid; exec sleep 1000' &`;

describe('a dev process that calls setsid', () => {
  it('ends with the session that ran it', async () => {
    const dir = scratch();
    const journal = Journal.open(join(dir, 'journal.sqlite'));
    cleanups.push(() => journal.close());
    const terminals = new Terminals({
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      emit: () => {},
      track: processLedger(journal),
    });
    terminals.create({ command: `${ESCAPES} sleep 1000` });
    const pids = await escapedPids(dir);
    expect(pids.every(alive)).toBe(true);
    await terminals.closeAll();
    await until(() => !pids.some(alive), 'the escaped processes to end');
    expect(journal.processes()).toEqual([]);
  });

  it('is ended by the next start after a workstation that died without ending it', async () => {
    const dir = scratch();
    const path = join(dir, 'journal.sqlite');
    const before = Journal.open(path);
    // Started as the workstation starts it, and left behind as a crash leaves it: its leader
    // gone too, so neither its group nor its session leads to what escaped.
    const leader = new AgentProcess(
      { command: '/bin/sh', args: ['-c', `${ESCAPES} wait`] },
      { cwd: dir, env: { PATH: process.env.PATH ?? '' }, track: processLedger(before) },
    );
    const pids = await escapedPids(dir);
    process.kill(leader.pid!, 'SIGKILL');
    await leader.exited;
    before.close();
    expect(pids.every(alive)).toBe(true);

    const after = Journal.open(path);
    cleanups.push(() => after.close());
    expect(reapLeftoverAgents(after)).toBe(2);
    await until(() => !pids.some(alive), 'the escaped processes to end');
    expect(after.processes()).toEqual([]);
  });
});

describe('ending an agent', () => {
  it('closes its input first, so an agent that writes its last records then gets to, and signals only one that stays', async () => {
    const dir = scratch();
    const done = join(dir, 'finished');
    // Writes its closing record when its input ends, as Copilot CLI writes its token counts.
    const polite = new AgentProcess(
      {
        command: process.execPath,
        args: [
          '-e',
          `process.stdin.resume(); process.stdin.on('end', () => { require('node:fs').writeFileSync(${JSON.stringify(done)}, 'bye'); process.exit(0); });`,
        ],
      },
      { cwd: dir, env: { PATH: process.env.PATH ?? '' } },
    );
    await new Promise((r) => setTimeout(r, 200));
    await polite.kill();
    expect(readFileSync(done, 'utf8')).toBe('bye');
    expect(await polite.exited).toEqual({ code: 0, signal: null });

    // One that ignores the end of its input is signalled after the moment.
    const stubborn = new AgentProcess(
      { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
      { cwd: dir, env: { PATH: process.env.PATH ?? '' } },
    );
    const started = Date.now();
    await stubborn.kill();
    expect((await stubborn.exited).signal).toBe('SIGTERM');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
