// `cairn fork` through Claude Code's own fork: three turns driven in the real adapter (installed
// through cairn's own install path, outside the repository) against the fake model on 127.0.0.1,
// then a fork from the middle prompt. The adapter copies its session up to the last model message
// before that prompt, and the prompt is asked again in the copy.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import {
  type FakeModel,
  type RecordedRequest,
  startFakeModel,
} from '../../runner/test/support/fake-model.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

const TURNS = [
  { prompt: 'First question about apples', answer: 'Apples grow on trees in orchards.' },
  { prompt: 'Second question about bees', answer: 'Bees make honey from nectar.' },
  { prompt: 'Third question about clouds', answer: 'Clouds are made of water droplets.' },
] as const;
const FORKED_ANSWER = 'Bees, asked again in the fork.';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: Record<string, unknown>[];
}

interface Link {
  kind: string;
  from: { agent: string; sid: string };
  to: { agent: string; sid: string };
  at_item?: string;
  via?: string;
  created_at: number;
}

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

function cairn(args: string[], env: Record<string, string>): Promise<Ran> {
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.split('\n').flatMap((l) => {
        try {
          return l.startsWith('{"') ? [JSON.parse(l) as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      });
      resolvePromise({ code, stdout, stderr, lines });
    });
  });
}

const bodyOf = (r: RecordedRequest): string => JSON.stringify(r.body);
const count = (text: string, part: string): number => text.split(part).length - 1;

/** The Claude Code transcript of a session, as the agent wrote it under its home. */
function transcriptFile(home: string, sid: string): string {
  const projects = join(home, '.claude', 'projects');
  for (const folder of readdirSync(projects)) {
    const file = join(projects, folder, `${sid}.jsonl`);
    try {
      readFileSync(file);
      return file;
    } catch {
      // Not in this project's folder.
    }
  }
  throw new Error(`no transcript of ${sid} under ${projects}`);
}

/** The uuid of the prompt record whose text is `prompt`. */
function promptUuid(file: string, prompt: string): string {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { type?: string; uuid?: string; message?: { content?: unknown } };
    if (record.type !== 'user' || typeof record.uuid !== 'string') continue;
    const content = record.message?.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((b: { text?: string }) => b.text ?? '').join('')
          : '';
    if (text === prompt) return record.uuid;
  }
  throw new Error(`no prompt '${prompt}' in ${file}`);
}

async function listedLinks(env: Record<string, string>, sid: string): Promise<Link[] | undefined> {
  const listed = await cairn(['sessions', '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  const sessions = (
    JSON.parse(listed.stdout) as { sessions: { agent: string; id: string; links?: Link[] }[] }
  ).sessions;
  const found = sessions.find((s) => s.agent === 'claude-code' && s.id === sid);
  expect(found, `claude-code ${sid} is listed`).toBeDefined();
  return found?.links;
}

/** Three turns driven in Claude Code under a scratch home: the source every fork here starts from. */
interface Source {
  readonly env: Record<string, string>;
  readonly home: string;
  readonly project: string;
  readonly sid: string;
  readonly file: string;
}

async function driveSource(): Promise<Source> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-fork-agent-'));
  scratches.push(dir);
  const project = join(dir, 'project');
  const cairnHome = join(dir, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const agentEnv = (await agentTestEnv('claude-code', model.url, dir)).env;
  // cairn reads the sessions the driven agent writes under the same home.
  const env = { ...agentEnv, CAIRN_HOME: cairnHome };
  let sid: string | undefined;
  for (const turn of TURNS) {
    model.script({ when: turn.prompt, steps: [{ kind: 'text', text: turn.answer }] });
    const session = sid === undefined ? [] : ['--session', sid];
    const ran = await cairn(['run', 'claude-code', '--cwd', project, ...session, '--json', turn.prompt], env);
    expect(ran.code, ran.stderr).toBe(0);
    const summary = ran.lines.at(-1) as { sessionId?: string };
    sid ??= summary.sessionId;
    expect(summary.sessionId).toBe(sid);
  }
  const home = agentEnv.HOME!;
  return { env, home, project, sid: sid!, file: transcriptFile(home, sid!) };
}

let source: Source;

describe('cairn fork through Claude Code', () => {
  beforeAll(async () => {
    source = await driveSource();
  }, 300_000);

  it('forks at the middle prompt with the agent’s own fork, holding only the turns before it', async () => {
    const { env, home, project, sid } = source;
    const sourceBefore = readFileSync(source.file, 'utf8');
    const at = promptUuid(source.file, TURNS[1].prompt);

    const asked = model.requests.length;
    model.script({ when: TURNS[1].prompt, steps: [{ kind: 'text', text: FORKED_ANSWER }] });
    const ran = await cairn(['fork', sid, '--at', at, '--cwd', project, '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.lines.find((l) => l.event === 'fork')).toMatchObject({
      via: 'agent',
      from: { agent: 'claude-code', sid },
      at_item: at,
    });
    // No document was built into a prompt: the agent's fork carries the history.
    expect(ran.lines.some((l) => l.event === 'handoff')).toBe(false);
    const linked = ran.lines.find((l) => l.event === 'link')?.link as Link | undefined;
    const forkSid = linked?.to.sid;
    expect(forkSid).toBeDefined();
    expect(forkSid).not.toBe(sid);
    expect(ran.lines.at(-1)).toMatchObject({ sessionId: forkSid });

    // (b) The model is asked in the fork with the first turn and the prompt again, nothing after.
    const forkRequests = model.mainRequests().filter((r) => model.requests.indexOf(r) >= asked);
    const answered = forkRequests.find((r) => bodyOf(r).includes(TURNS[1].prompt));
    expect(answered, 'the fork asked the model').toBeDefined();
    const body = bodyOf(answered!);
    expect(body).toContain(TURNS[0].prompt);
    expect(body).toContain(TURNS[0].answer);
    expect(count(body, TURNS[1].prompt)).toBe(1);
    expect(body).not.toContain(TURNS[1].answer);
    expect(body).not.toContain(TURNS[2].prompt);
    expect(body).not.toContain(TURNS[2].answer);

    // (a) The fork's transcript, as the agent wrote it: the turns before the cut, then its own.
    const forked = readFileSync(transcriptFile(home, forkSid!), 'utf8');
    expect(forked).toContain(TURNS[0].prompt);
    expect(forked).toContain(TURNS[0].answer);
    expect(forked).toContain(FORKED_ANSWER);
    expect(forked).not.toContain(TURNS[1].answer);
    expect(forked).not.toContain(TURNS[2].prompt);
    expect(forked).not.toContain(TURNS[2].answer);
    // The source is as it was: forking copies it and never writes into it.
    expect(readFileSync(source.file, 'utf8')).toBe(sourceBefore);

    // (c) Linked both ways, as a fork made by the agent, from the prompt picked.
    const link = {
      kind: 'fork',
      from: { agent: 'claude-code', sid },
      to: { agent: 'claude-code', sid: forkSid },
      at_item: at,
      via: 'agent',
      created_at: expect.any(Number),
    };
    expect(await listedLinks(env, sid)).toEqual([link]);
    expect(await listedLinks(env, forkSid!)).toEqual([link]);
  }, 400_000);

  it('hands the history off to Claude Code when its own fork cannot find the session', async () => {
    const { env, home, project } = source;
    // The same records under a name that is no session id of Claude Code's: cairn lists it, the
    // agent's fork cannot open it.
    const other = join(home, '.claude', 'projects', 'elsewhere');
    mkdirSync(other, { recursive: true });
    copyFileSync(source.file, join(other, 'renamed-copy.jsonl'));
    const at = promptUuid(source.file, TURNS[1].prompt);
    model.script({
      when: 'Fork of claude-code session',
      steps: [{ kind: 'text', text: 'From the document.' }],
    });
    const asked = model.requests.length;
    const ran = await cairn(['fork', 'renamed-copy', '--at', at, '--cwd', project, '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(
      /cairn fork: claude-code did not fork it itself \(.+\); handing the history off instead/,
    );
    expect(ran.lines.find((l) => l.event === 'handoff')).toMatchObject({ kind: 'fork', to: 'claude-code' });
    const link = ran.lines.find((l) => l.event === 'link')?.link as Link | undefined;
    expect(link).toMatchObject({
      kind: 'fork',
      from: { agent: 'claude-code', sid: 'renamed-copy' },
      at_item: at,
      via: 'handoff',
    });
    const request = model
      .mainRequests()
      .find((r) => model.requests.indexOf(r) >= asked && bodyOf(r).includes('Fork of claude-code session'));
    expect(request, 'the document reached the model').toBeDefined();
    const body = bodyOf(request!);
    expect(body).toContain(TURNS[0].answer);
    expect(body).not.toContain(TURNS[2].prompt);
  }, 300_000);

  it('hands the history off when the item has nothing before it to cut at (the first prompt)', async () => {
    const { env, project, sid } = source;
    const at = promptUuid(source.file, TURNS[0].prompt);
    model.script({ when: 'Fork of claude-code session', steps: [{ kind: 'text', text: 'From the start.' }] });
    const ran = await cairn(['fork', sid, '--at', at, '--cwd', project, '--json'], env);
    expect(ran.code, ran.stderr).toBe(0);
    // Not tried and refused: there was no cut to ask the agent for.
    expect(ran.stderr).not.toContain('did not fork it itself');
    expect(ran.lines.some((l) => l.event === 'fork')).toBe(false);
    expect(ran.lines.find((l) => l.event === 'link')?.link).toMatchObject({ kind: 'fork', via: 'handoff' });
  }, 300_000);
});
