// `cairn run` as scripts use it, against the real agent adapters and the fake model server:
// --model, the prompt from standard input, the --json summary line, permission rules from the
// command line and from config.json, and `cairn agents login --method api-key` keeping a key.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuiltInBridgeKey } from '@cairn/runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import {
  type FakeModel,
  type RecordedRequest,
  startFakeModel,
} from '../../runner/test/support/fake-model.js';

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
  lines: Record<string, unknown>[];
}

function scratch(): { dir: string; project: string; cairnHome: string } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-run-script-'));
  scratches.push(dir);
  const project = join(dir, 'project');
  const cairnHome = join(dir, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  return { dir, project, cairnHome };
}

/** The built CLI, with `stdin` piped in (an empty input when absent). */
function cairn(args: string[], env: Record<string, string>, stdin?: string): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: 'pipe' });
    // Nothing to give: an input that ends at once, as /dev/null would.
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').flatMap((l) => {
        try {
          return l.startsWith('{') ? [JSON.parse(l) as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      });
      done({ code, stdout, stderr, lines });
    });
  });
}

async function envFor(key: BuiltInBridgeKey, s: ReturnType<typeof scratch>): Promise<Record<string, string>> {
  const { env } = await agentTestEnv(key, model.url, s.dir);
  return { ...env, CAIRN_HOME: s.cairnHome };
}

const summaryOf = (ran: Ran) => {
  const last = ran.lines.at(-1);
  expect(last?.event, ran.stdout.slice(-2000)).toBe('summary');
  return last as {
    agent: string;
    sessionId: string | null;
    status: string;
    stopReason: string | null;
    durationMs: number;
    tokens?: Record<string, number>;
    toolCalls: { id: string; title: string | null; kind: string | null; status: string | null }[];
    filesChanged: string[];
  };
};

/** How each agent is made to ask before writing (Claude Code decides by itself in its default mode). */
const ASKING: Partial<Record<BuiltInBridgeKey, string[]>> = { 'claude-code': ['--mode', 'default'] };

/** The model each agent is switched to, and how to see in a model request that it was used. */
const MODELS: Record<
  string,
  {
    id: string;
    seen: (r: RecordedRequest) => boolean;
    anyRequest?: true;
    /** A request beside the turn that goes to a model of the agent's own choosing. */
    aside?: (r: RecordedRequest) => boolean;
  }
> = {
  'claude-code': { id: 'haiku', seen: (r) => /haiku/.test(String((r.body as { model?: unknown }).model)) },
  // Codex offers this model its tools inside the input, which the fake server takes for a side
  // request: every request of the turn is looked at.
  codex: {
    id: 'gpt-6-sol',
    anyRequest: true,
    // The session's title, asked of its own small model when the turn leaves it time.
    aside: (r) => JSON.stringify(r.body).includes('generate a very short title'),
    seen: (r) => String((r.body as { model?: unknown }).model) === 'gpt-6-sol',
  },
  'gemini-cli': { id: 'gemini-2.5-pro', seen: (r) => r.path.includes('/models/gemini-2.5-pro:') },
  // OpenCode's other models are on the network; the configured one shows the option is set.
  opencode: {
    id: 'fake/scripted',
    seen: (r) => String((r.body as { model?: unknown }).model) === 'scripted',
  },
};

describe.each(['claude-code', 'codex', 'gemini-cli', 'opencode'] as const)(
  'cairn run %s for scripts',
  (key) => {
    it('--model sets the session model; an unknown one is named with those the agent offers', async () => {
      const s = scratch();
      // The refused run gets homes of its own, so that the two runs share nothing and can start
      // their agents side by side: each start is most of a run's time.
      const refusedIn = scratch();
      const [env, refusedEnv] = await Promise.all([envFor(key, s), envFor(key, refusedIn)]);
      const marker = `model-${key}`;
      model.script({ when: marker, steps: [{ kind: 'text', text: `Answered by the model for ${key}.` }] });
      const [unknown, ran] = await Promise.all([
        cairn(['run', key, '--cwd', refusedIn.project, '--model', 'no-such-model', 'hi'], refusedEnv),
        cairn(['run', key, '--cwd', s.project, '--model', MODELS[key]!.id, '--json', `say ${marker}`], env),
      ]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(`cairn run: ${key}: no model 'no-such-model' (the agent offers `);
      expect(unknown.stderr).toContain(MODELS[key]!.id);

      expect(ran.stderr).not.toMatch(/cairn run:/);
      expect(ran.code).toBe(0);
      const asked = (MODELS[key]!.anyRequest ? model.requests : model.mainRequests()).filter(
        (r) => JSON.stringify(r.body).includes(marker) && !MODELS[key]!.aside?.(r),
      );
      expect(asked.length).toBeGreaterThan(0);
      expect(
        asked.every((r) => MODELS[key]!.seen(r)),
        JSON.stringify(asked.map((r) => [r.path, r.body])),
      ).toBe(true);
      model.reset();
    }, 300_000);

    it('takes the prompt from standard input and ends --json with a summary of the turn', async () => {
      const s = scratch();
      const env = await envFor(key, s);
      const target = join(s.project, 'notes.txt');
      const marker = `stdin-${key}`;
      model.script(
        { when: marker, steps: [{ kind: 'write', path: target, content: 'from the rule\n' }] },
        {
          when: (r) => JSON.stringify(r.body).includes(marker),
          steps: [
            { kind: 'text', text: 'Written.' },
            { kind: 'usage', input: 40, output: 9 },
          ],
        },
      );
      // No prompt argument and a pipe on standard input: the pipe is the prompt.
      const ran = await cairn(
        ['run', key, '--cwd', s.project, ...(ASKING[key] ?? []), '--allow', 'Edit(notes.txt)', '--json'],
        env,
        `please ${marker}\n`,
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('from the rule\n');
      // The rule answered, and the terminal said which one; nobody was asked.
      expect(ran.stderr).toContain("⎿ allowed by --allow 'Edit(notes.txt)'");
      expect(ran.stderr).not.toContain('no terminal to answer it');

      const summary = summaryOf(ran);
      const opened = ran.lines.find((l) => l.event === 'opened') as { nativeSessionId?: string };
      expect(summary).toMatchObject({ agent: key, status: 'completed', stopReason: 'end_turn' });
      expect(summary.sessionId).toBe(opened.nativeSessionId);
      expect(summary.durationMs).toBeGreaterThan(0);
      expect(summary.filesChanged).toEqual([target]);
      expect(summary.toolCalls.some((c) => c.kind === 'edit' && c.status === 'completed')).toBe(true);
      // Token counts as the agent reports them; Gemini CLI reports none, so there are none, not zeros.
      if (key === 'gemini-cli') expect(summary.tokens).toBeUndefined();
      else expect(summary.tokens?.outputTokens).toBeGreaterThan(0);
      model.reset();
    }, 300_000);

    it("a deny rule of config.json refuses the write, over the command line's allow", async () => {
      const s = scratch();
      const env = await envFor(key, s);
      writeFileSync(
        join(s.cairnHome, 'config.json'),
        JSON.stringify({ permissions: { deny: ['Edit(*.txt)'] } }),
      );
      const target = join(s.project, 'notes.txt');
      const marker = `deny-${key}`;
      model.script(
        { when: marker, steps: [{ kind: 'write', path: target, content: 'must not land\n' }] },
        { when: (r) => JSON.stringify(r.body).includes(marker), steps: [{ kind: 'text', text: 'Refused.' }] },
      );
      const ran = await cairn(
        ['run', key, '--cwd', s.project, ...(ASKING[key] ?? []), '--allow', '*', '--json', '-'],
        env,
        `please ${marker}`,
      );
      expect(ran.lines.some((l) => l.event === 'permission_request')).toBe(true);
      expect(existsSync(target)).toBe(false);
      expect(ran.stderr).toContain("⎿ denied by config.json deny 'Edit(*.txt)'");
      expect(summaryOf(ran).filesChanged).toEqual([]);
      model.reset();
    }, 300_000);
  },
);

describe('cairn run permission rules', () => {
  it('a command no rule covers is asked about, and refused with no terminal', async () => {
    // Two runs, one refused and one allowed, each with its own homes and project, side by side.
    const refusedIn = scratch();
    const allowedIn = scratch();
    const [refusedEnv, allowedEnv] = await Promise.all([
      envFor('claude-code', refusedIn),
      envFor('claude-code', allowedIn),
    ]);
    const marker = 'bash-unmatched';
    const allowed = 'bash-matched';
    for (const when of [marker, allowed]) {
      model.script(
        {
          when,
          steps: [
            { kind: 'tool', name: 'Bash', input: { command: 'echo ruled > ran.txt', description: 'Note' } },
          ],
        },
        { when: (r) => JSON.stringify(r.body).includes(when), steps: [{ kind: 'text', text: 'Fine.' }] },
      );
    }
    const [ran, again] = await Promise.all([
      // `echo *` does not cover a command that redirects: the question is asked, and refused.
      cairn(
        [
          'run',
          'claude-code',
          '--cwd',
          refusedIn.project,
          '--mode',
          'default',
          '--allow',
          'Bash(echo *)',
          marker,
        ],
        refusedEnv,
      ),
      cairn(
        [
          'run',
          'claude-code',
          '--cwd',
          allowedIn.project,
          '--mode',
          'default',
          '--allow',
          'Bash(echo * > ran.txt)',
          allowed,
        ],
        allowedEnv,
      ),
    ]);
    expect(ran.stdout).toContain('? permission: echo ruled > ran.txt');
    expect(ran.stderr).toContain('a permission was asked with no terminal to answer it; refused');
    expect(existsSync(join(refusedIn.project, 'ran.txt'))).toBe(false);

    expect(again.stderr).toContain("⎿ allowed by --allow 'Bash(echo * > ran.txt)'");
    expect(readFileSync(join(allowedIn.project, 'ran.txt'), 'utf8')).toBe('ruled\n');
    model.reset();
  }, 300_000);

  it('a rule that does not read is a usage error, from the command line or config.json', async () => {
    const s = scratch();
    const env = await envFor('claude-code', s);
    const flag = await cairn(['run', 'claude-code', '--allow', 'Bash(npm test', 'hi'], env);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("cairn run: --allow: 'Bash(npm test' is not a permission rule");
    writeFileSync(join(s.cairnHome, 'config.json'), JSON.stringify({ permissions: { deny: [42] } }));
    const config = await cairn(['run', 'claude-code', 'hi'], env);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain(
      `${join(s.cairnHome, 'config.json')}: permissions.deny[0] must be a string`,
    );
  }, 60_000);

  it('an empty standard input is a missing prompt', async () => {
    const s = scratch();
    const ran = await cairn(['run', 'claude-code', '--cwd', s.project], await envFor('claude-code', s), '');
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('missing prompt (standard input was empty)');
  }, 60_000);
});

describe('cairn agents login --method api-key', () => {
  it('keeps a piped key for the agent and never prints it', async () => {
    const s = scratch();
    const env = await envFor('codex', s);
    const key = 'sk-test-piped-0123456789';
    const ran = await cairn(['agents', 'login', 'codex', '--method', 'api-key'], env, `${key}\n`);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('codex: signed in with api-key');
    expect(ran.stdout + ran.stderr).not.toContain(key);
    const kept = JSON.parse(readFileSync(join(s.cairnHome, 'agent-keys.json'), 'utf8')) as Record<
      string,
      { env?: Record<string, string>; method?: string }
    >;
    expect(kept.codex?.env?.CODEX_API_KEY).toBe(key);
    expect(kept.codex?.method).toBe('api-key');
  }, 120_000);

  it('asks for the key on a terminal without echoing it', async () => {
    const s = scratch();
    const env = { ...(await envFor('codex', s)), TERM: 'dumb' };
    const key = 'sk-test-typed-9876543210';
    const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;
    const line = [process.execPath, bin, 'agents', 'login', 'codex', '--method', 'api-key']
      .map(quote)
      .join(' ');
    const child = spawn('script', ['-qfec', line, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    for (const stream of [child.stdout, child.stderr])
      stream.setEncoding('utf8').on('data', (c: string) => {
        out += c;
      });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    for (let i = 0; i < 300 && !out.includes('API key for codex'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('API key for codex (kept for it as CODEX_API_KEY): ');
    child.stdin.write(`${key}\r`);
    expect(await exited, out).toBe(0);
    expect(out).toContain('codex: signed in with api-key');
    expect(out).not.toContain(key);
    const kept = JSON.parse(readFileSync(join(s.cairnHome, 'agent-keys.json'), 'utf8')) as Record<
      string,
      { env?: Record<string, string>; method?: string }
    >;
    expect(kept.codex?.env?.CODEX_API_KEY).toBe(key);
    expect(kept.codex?.method).toBe('api-key');
    child.stdin.end();
  }, 120_000);
});
