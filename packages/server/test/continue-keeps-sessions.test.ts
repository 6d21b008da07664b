// Continuing an agent's own session must leave its files whole. For each agent cairn reads, a
// corpus session is copied into a scratch home and continued twice through the local drive (what
// `cairn run --session` does) with the real adapter against the fake model; then a new session
// starts in the same project. The session's file must still begin with the corpus bytes, hold the
// new turns, and be listed by cairn once.
//
// Gemini CLI is the one that bit: each load leaves a header-only second file for the session, and
// its start-up sweep of the folder it starts in deletes every file sharing the session's id prefix.
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listSessions, nodePlatform } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridgeKey } from '../../runner/src/bridges.js';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { corpusPath } from '../../transcript/test/corpus.js';
import { LOCAL_WORKSTATION, startLocalDrive } from '../src/drive/local-drive.js';

interface Placed {
  readonly sessionId: string;
  /** The file the session is continued from, and its bytes before. */
  readonly file: string;
  readonly before: Buffer;
  /** The file that takes the new turns (the same, unless the agent migrates the format). */
  readonly continuedIn: string;
  /** Not to be reopened before this time (ms). */
  readonly notBefore?: number;
}

interface Setting {
  readonly env: Record<string, string>;
  readonly project: string;
  readonly cairnHome: string;
}

interface Case {
  readonly name: string;
  readonly key: BuiltInBridgeKey;
  /** Placed before the tests run, so the wait it needs passes while the others run. */
  readonly early?: boolean;
  /** Puts a session where the agent keeps those of `project`, under the setting's homes. */
  readonly place: (setting: Setting) => Promise<Placed>;
}

/** A corpus file copied to `dir`, read in place. */
function copied(corpus: string, dir: string, name = basename(corpus)): { file: string; before: Buffer } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  copyFileSync(corpus, file);
  return { file, before: readFileSync(corpus) };
}

const GEMINI_CORPUS = corpusPath(
  'gemini/tmp/2d33ff9193c39ffa4b8352af23f3b106d1ceaff756665e12408cb64657965d22/chats',
  'session-2025-10-21T20-04-0b23371a.json',
);

const CASES: readonly Case[] = [
  {
    name: 'gemini-cli, a corpus session',
    key: 'gemini-cli',
    place: async ({ env, project }) => {
      // The current layout: the project registered under a short id, its chats under that id.
      const gemini = join(env.HOME!, '.gemini');
      mkdirSync(join(gemini, 'tmp', 'pomodoro'), { recursive: true });
      writeFileSync(join(gemini, 'projects.json'), JSON.stringify({ projects: { [project]: 'pomodoro' } }));
      writeFileSync(join(gemini, 'tmp', 'pomodoro', '.project_root'), project);
      const placed = copied(GEMINI_CORPUS, join(gemini, 'tmp', 'pomodoro', 'chats'));
      // Reopening a legacy single-document session moves it on in `<name>.jsonl`.
      return { sessionId: '0b23371a-ce2e-4b1c-81a0-44af5d94d9ce', ...placed, continuedIn: `${placed.file}l` };
    },
  },
  {
    name: 'claude-code, a corpus session',
    key: 'claude-code',
    place: async ({ env, project }) => {
      const dir = join(env.HOME!, '.claude', 'projects', project.replace(/[/.]/g, '-'));
      const sessionId = '55604662-cf2a-4331-851a-ec234028f8ca';
      const placed = copied(
        corpusPath('claude/projects/-work-spotter/short.jsonl'),
        dir,
        `${sessionId}.jsonl`,
      );
      return { sessionId, ...placed, continuedIn: placed.file };
    },
  },
  {
    name: 'codex, a corpus session',
    key: 'codex',
    place: async ({ env }) => {
      const corpus = corpusPath(
        'codex/sessions/2025/10/21',
        'rollout-2025-10-21T20-02-50-019a085e-04c1-7f81-a09e-9555f6a1fb40.jsonl',
      );
      const placed = copied(corpus, join(env.CODEX_HOME!, 'sessions', '2025', '10', '21'));
      return { sessionId: '019a085e-04c1-7f81-a09e-9555f6a1fb40', ...placed, continuedIn: placed.file };
    },
  },
  {
    // Younger than the sweep's age limit: what swept it away was the second file each load leaves.
    // Last, so that the wait for the next minute passes while the others run.
    name: 'gemini-cli, a session of today',
    key: 'gemini-cli',
    early: true,
    place: async ({ env, project, cairnHome }) => {
      const end = await runTurn(cairnHome, env, 'gemini-cli', project, undefined, 'first-marker');
      expect(end).toMatchObject({ status: 'completed' });
      const sessionId = String(end.nativeSessionId);
      const file = (await listedFiles(env, 'gemini-cli', sessionId))[0]!;
      // Gemini CLI names the file by the UTC minute it began; a load within that minute writes its
      // header into the same file and so hides the conversation (an upstream fault of its own).
      const [, y, mo, d, h, mi] = basename(file)
        .match(/^session-(\d+)-(\d+)-(\d+)T(\d+)-(\d+)-/)!
        .map(Number);
      const notBefore = Date.UTC(y!, mo! - 1, d, h, mi) + 60_000;
      return { sessionId, file, before: readFileSync(file), continuedIn: file, notBefore };
    },
  },
];

let model: FakeModel;
let agentsHome: string;
let scratchRoot: string;
const preparedEarly = new Map<string, Promise<{ setting: Setting; placed: Placed }>>();

/** A project folder, the agent's homes and a cairn home of the case's own. */
async function settingOf(c: Case): Promise<Setting> {
  const scratch = join(scratchRoot, c.name.replace(/\W+/g, '-'));
  const project = join(scratch, 'pomodoro');
  mkdirSync(project, { recursive: true });
  const { env } = await agentTestEnv(c.key, model.url, scratch);
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  return { env, project, cairnHome };
}

async function prepare(c: Case): Promise<{ setting: Setting; placed: Placed }> {
  const setting = await settingOf(c);
  return { setting, placed: await c.place(setting) };
}

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  model = await startFakeModel();
  scratchRoot = mkdtempSync(join(tmpdir(), 'cairn-keeps-'));
  for (const c of CASES) if (c.early) preparedEarly.set(c.name, prepare(c));
  await Promise.all(preparedEarly.values());
}, 600_000);

afterAll(async () => {
  await model?.close();
  rmSync(scratchRoot, { recursive: true, force: true });
});

/** One `cairn run`: a drive of its own, one turn in a new or continued session, then all closed. */
async function runTurn(
  cairnHome: string,
  env: Record<string, string>,
  agent: BuiltInBridgeKey,
  cwd: string,
  nativeSessionId: string | undefined,
  text: string,
): Promise<{ status?: unknown; error?: unknown; nativeSessionId?: unknown }> {
  const drive = await startLocalDrive({ cairnHome, env });
  try {
    const opened = await drive.server.open({
      workstation: LOCAL_WORKSTATION,
      agentKey: agent,
      bridge: agent,
      cwd,
      ...(nativeSessionId ? { nativeSessionId } : {}),
    });
    if (!opened.ok) return { status: 'not opened', error: opened.error };
    const ended = new Promise<Record<string, unknown>>((resolve) => {
      drive.server.subscribe(opened.sessionRef, (notice) => {
        if (notice.kind === 'lost') resolve({ status: 'lost', error: notice.error });
        else if (notice.event.eventName === 'agent_turn_done') resolve(notice.event.payload);
      });
    });
    const sent = drive.server.prompt(opened.sessionRef, text);
    if (!sent.ok) return { status: 'not sent', error: sent.error };
    const end = await ended;
    drive.server.closeSession(opened.sessionRef);
    return end;
  } finally {
    await drive.close();
  }
}

/** The files cairn lists for one session of an agent. */
async function listedFiles(env: Record<string, string>, agent: string, sessionId: string): Promise<string[]> {
  const listed: string[] = [];
  for await (const entry of listSessions(nodePlatform({ env, homeDir: env.HOME! }), { agent })) {
    if (!('ref' in entry) && entry.id === sessionId) listed.push(entry.path);
  }
  return listed;
}

describe.each(CASES)('$name', (c) => {
  it('keeps the session it continues: the same first bytes, the new turns, listed once', async () => {
    const { setting, placed } = await (preparedEarly.get(c.name) ?? prepare(c));
    const { env, project, cairnHome } = setting;
    if (placed.notBefore !== undefined) await sleep(placed.notBefore - Date.now());

    for (const round of [1, 2]) {
      const end = await runTurn(cairnHome, env, c.key, project, placed.sessionId, `keep-marker ${round}`);
      expect(end, `continue ${round}`).toMatchObject({
        status: 'completed',
        nativeSessionId: placed.sessionId,
      });
    }
    // Another start of the agent in the same project: where Gemini CLI used to sweep the session away.
    const fresh = await runTurn(cairnHome, env, c.key, project, undefined, 'a new session');
    expect(fresh).toMatchObject({ status: 'completed' });

    expect(readFileSync(placed.file).subarray(0, placed.before.length).equals(placed.before)).toBe(true);
    const continued = readFileSync(placed.continuedIn, 'utf8');
    expect(continued).toContain('keep-marker 1');
    expect(continued).toContain('keep-marker 2');
    expect(await listedFiles(env, c.key, placed.sessionId)).toEqual([placed.continuedIn]);
  }, 150_000);
});
