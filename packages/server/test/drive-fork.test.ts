// An open that asks for the agent's own fork, over the agent wire to a real workstation and a real
// agent process (the scripted ACP agent, which offers no `session/fork`): the answer says the fork
// cannot be made, so the caller hands the history off instead; a malformed fork is refused naming
// the field; and a workstation that does not know cairn's fork key, and so opens a plain session,
// is told apart and its session closed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORK_OPEN_KEY, type ForkOpen } from '@cairn/protocol';
import { Journal, Workstation } from '@cairn/runner';
import { afterEach, describe, expect, it } from 'vitest';
import { SCRIPTED_AGENT } from '../../runner/test/support/agents.js';
import { AgentWireServer } from '../src/drive/agent-wire-server.js';
import { EventLog } from '../src/drive/event-log.js';
import { linkInProcess } from '../src/drive/local-link.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A workstation from before cairn's fork key: it opens what it is asked, without the key. */
class ForkUnawareWorkstation extends Workstation {
  override receive(text: string): void {
    const frame = JSON.parse(text) as Record<string, unknown>;
    if (frame.t === 'agent_open') delete frame[FORK_OPEN_KEY];
    super.receive(JSON.stringify(frame));
  }
}

async function setup(kind: typeof Workstation = Workstation) {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-drive-fork-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = new EventLog(':memory:');
  const server = new AgentWireServer({ log, ticketOwner: () => undefined });
  const journal = Journal.open(join(dir, 'journal.sqlite'));
  const workstation = new kind({
    cairnHome: dir,
    journal,
    env: { PATH: process.env.PATH ?? '', HOME: dir },
    resolveLaunch: async (_bridge, context) => ({
      ok: true,
      launch: {
        command: { command: process.execPath, args: [SCRIPTED_AGENT] },
        cwd: context.cwd,
        env: context.env,
      },
    }),
  });
  linkInProcess(server, workstation, { as: 'local' });
  await server.waitForWorkstation('local');
  cleanups.push(async () => {
    server.close();
    await workstation.stop();
    journal.close();
    log.shutdown();
  });
  const open = (fork: ForkOpen) =>
    server.open({ workstation: 'local', agentKey: 'scripted', bridge: 'scripted', cwd: dir, fork });
  return { server, workstation, journal, open };
}

describe('an agent-wire open that asks for the agent’s own fork', () => {
  it('says the fork cannot be made when the agent offers no session/fork', async () => {
    const { open } = await setup();
    const opened = await open({ nativeSessionId: 'source-session', messageId: 'msg_1' });
    expect(opened).toMatchObject({ ok: false, forkUnsupported: true });
    expect(opened.error).toContain('cannot fork a session (no session/fork)');
    expect(opened.forked).toBeUndefined();
  }, 60_000);

  it('refuses a malformed fork, naming the field, as no fork refusal', async () => {
    const { open } = await setup();
    const opened = await open({ nativeSessionId: '' });
    expect(opened.ok).toBe(false);
    expect(opened.error).toBe(`agent_open ${FORK_OPEN_KEY}.nativeSessionId must not be empty`);
    expect(opened.forkUnsupported).toBeUndefined();
  }, 60_000);

  it('tells a plain session from a fork when the workstation does not know the key, and closes it', async () => {
    const { open, journal } = await setup(ForkUnawareWorkstation);
    const opened = await open({ nativeSessionId: 'source-session', messageId: 'msg_1' });
    expect(opened).toMatchObject({ ok: false, forkUnsupported: true });
    expect(opened.error).toContain("does not make agents' own forks");
    // The plain session the workstation opened is closed, not left running as if it were the fork.
    for (const start = Date.now(); journal.session(opened.sessionRef)?.closed !== true; ) {
      if (Date.now() - start > 10_000) throw new Error('the plain session was not closed');
      await new Promise((r) => setTimeout(r, 25));
    }
  }, 60_000);
});
