// A driven session on the scripted agent with an in-memory journal: what it hands on and logs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DrivenSession, type SessionOutput, type TurnDoneFrame } from '../../src/driven-session.js';
import { Journal } from '../../src/journal.js';
import { SCRIPTED_AGENT } from './agents.js';

export interface Driven {
  readonly session: DrivenSession;
  readonly journal: Journal;
  readonly events: { seq: number; eventName: string; payload: Record<string, unknown> }[];
  readonly ends: TurnDoneFrame[];
  readonly lost: string[];
  readonly log: string[];
  close(): Promise<void>;
}

export function drivenScriptedSession(env: Record<string, string> = {}): Driven {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-driven-'));
  const journal = Journal.open(':memory:');
  const sessionRef = 'ref-1';
  journal.upsertSession({
    sessionRef,
    agentKey: 'scripted',
    bridge: 'scripted',
    cwd: dir,
    nativeSessionId: null,
    openFrame: {},
  });
  const events: Driven['events'] = [];
  const ends: TurnDoneFrame[] = [];
  const lost: string[] = [];
  const log: string[] = [];
  const output: SessionOutput = {
    event: (frame) => events.push(frame as Driven['events'][number]),
    turnDone: (frame) => ends.push(frame),
    lost: (_ref, action) => lost.push(action),
  };
  const session = new DrivenSession(
    sessionRef,
    {
      command: { command: process.execPath, args: [SCRIPTED_AGENT] },
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      log: (line) => log.push(line),
    },
    journal,
    output,
    null,
  );
  return {
    session,
    journal,
    events,
    ends,
    lost,
    log,
    close: async () => {
      await session.close();
      journal.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
