// `cairn run` against the real agent adapters (installed through cairn's own install path into a
// cache outside the repository), each talking to the fake model server on 127.0.0.1.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuiltInBridgeKey } from '@cairn/runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNoCredentialsEnv, agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

let model: FakeModel;
let agentsHome: string;
const scratches: string[] = [];

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
  model = await startFakeModel();
}, 600_000);

afterAll(async () => {
  await model?.close();
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  events: { event: string; payload?: Record<string, unknown> }[];
}

/** A scratch folder with a project and a cairn home whose agents/ is the shared install. */
function scratch(): { dir: string; project: string; cairnHome: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-run-'));
  scratches.push(dir);
  const project = join(dir, 'project');
  const cairnHome = join(dir, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  return { dir, project, cairnHome };
}

function cairnRun(args: string[], env: Record<string, string>): Promise<Ran> {
  return cairnCommand(['run', ...args], env);
}

function cairnCommand(args: string[], env: Record<string, string>): Promise<Ran> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      // `run --json` writes one event a line; other commands' output is not events.
      const events = stdout.split('\n').flatMap((l) => {
        try {
          return l.startsWith('{"') ? [JSON.parse(l) as Ran['events'][number]] : [];
        } catch {
          return [];
        }
      });
      resolvePromise({ code, stdout, stderr, events });
    });
  });
}

function replyText(ran: Ran): string {
  return ran.events
    .filter((e) => e.event === 'agent_message_chunk')
    .map((e) => (e.payload as { content?: { text?: string } }).content?.text ?? '')
    .join('');
}

/** How each agent is made to ask before writing: a session mode, or its environment. */
const ASKING: Record<BuiltInBridgeKey, string[]> = {
  'claude-code': ['--mode', 'default'],
  codex: [],
  'gemini-cli': [],
  opencode: [],
  'qwen-code': [],
  kilo: [],
  pi: [],
  'copilot-cli': [],
};

describe.each(['claude-code', 'codex', 'gemini-cli', 'opencode'] as const)('cairn run %s', (key) => {
  it('streams a reply from the model in order and ends end_turn', async () => {
    const s = scratch();
    const { env } = await agentTestEnv(key, model.url, s.dir);
    const marker = `hello-${key}`;
    model.script({
      when: marker,
      steps: [
        { kind: 'text', text: `Greetings from the fake model, ${key}.`, deltas: 4 },
        { kind: 'usage', input: 40, output: 9 },
      ],
    });
    const ran = await cairnRun([key, '--cwd', s.project, '--json', `say ${marker}`], {
      ...env,
      CAIRN_HOME: s.cairnHome,
    });
    expect(ran.stderr).not.toMatch(/cairn run:/);
    expect(ran.code).toBe(0);
    expect(replyText(ran)).toContain(`Greetings from the fake model, ${key}.`);
    const done = ran.events.find((e) => e.event === 'agent_turn_done');
    expect(done?.payload).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    // Usage arrives from every agent that reports it (Gemini CLI keeps its counts to itself).
    if (key !== 'gemini-cli')
      expect(ran.events.some((e) => e.event === 'usage_update' || e.event === 'turn_usage')).toBe(true);
    // The session the agent wrote is one cairn reads like any other.
    if (key !== 'opencode') {
      const opened = ran.events.find((e) => e.event === 'opened') as { nativeSessionId?: string } | undefined;
      const listed = await cairnCommand(['sessions', '--json'], { ...env, CAIRN_HOME: s.cairnHome });
      expect(listed.stdout).toContain(String(opened?.nativeSessionId));
    }
  }, 180_000);

  it('asks before writing: --allow writes the file, --deny does not', async () => {
    // The two runs share nothing (homes, project, marker), so their agents start side by side.
    const runs = (['--allow', '--deny'] as const).map(async (answer) => {
      const s = scratch();
      const { env } = await agentTestEnv(key, model.url, s.dir);
      const target = join(s.project, 'notes.txt');
      const marker = `write-${key}${answer}`;
      model.script(
        { when: marker, steps: [{ kind: 'write', path: target, content: 'written by the agent\n' }] },
        {
          when: (r) => JSON.stringify(r.body).includes(marker),
          steps: [{ kind: 'text', text: 'All done.' }],
        },
      );
      const ran = await cairnRun(
        [key, '--cwd', s.project, ...ASKING[key], answer, '--json', `please ${marker}`],
        {
          ...env,
          CAIRN_HOME: s.cairnHome,
        },
      );
      return { answer, target, ran };
    });
    for (const { answer, target, ran } of await Promise.all(runs)) {
      const asked = ran.events.filter((e) => e.event === 'permission_request');
      expect(asked.length, `${answer}: ${ran.stderr}`).toBeGreaterThan(0);
      if (answer === '--allow') {
        expect(readFileSync(target, 'utf8')).toBe('written by the agent\n');
      } else {
        expect(existsSync(target)).toBe(false);
      }
    }
    model.reset();
  }, 240_000);

  it('without credentials says how to sign in', async () => {
    const s = scratch();
    const { env } = await agentNoCredentialsEnv(key, s.dir);
    const ran = await cairnRun([key, '--cwd', s.project, 'hello'], { ...env, CAIRN_HOME: s.cairnHome });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(`cairn run: not signed in to ${key}: cairn agents login ${key}`);
  }, 180_000);
});
