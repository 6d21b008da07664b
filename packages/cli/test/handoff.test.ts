// `cairn handoff` and `cairn fork` against the real codex adapter (installed through cairn's own
// install path into a cache outside the repository) talking to the fake model on 127.0.0.1, with
// the source sessions taken from the corpus.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import {
  type FakeModel,
  type RecordedRequest,
  startFakeModel,
} from '../../runner/test/support/fake-model.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** A short Claude Code session of the corpus: a prompt about a Phoenix server that will not start. */
const CLAUDE_SOURCE = 'short';
const CLAUDE_PROMPT = 'mix phx.server doesnt seem to start';
/** A Codex session of the corpus, and the item a fork is made at (its first reply) with one after it. */
const CODEX_SOURCE = corpusPath(
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl',
);
const CODEX_SID = '019c8a4d-8f45-7010-8b5d-7fad920aa6f9';
const FORK_AT = 'L16';
const FORK_AT_TEXT = '[REDACTED_TEXT len=176 sha=bb721c9c]';
const AFTER_FORK_TEXT = '[REDACTED_TEXT len=180 sha=24cf6651]';
/** The shape of an AWS access key, never a real one. */
const PLANTED_KEY = 'AKIAZ3MSJV4WWNKWW5FF';

interface Link {
  kind: string;
  from: { agent: string; sid: string };
  to: { agent: string; sid: string };
  at_item?: string;
  created_at: number;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  lines: Record<string, unknown>[];
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

/** A project folder, a cairn home sharing the installed adapters, and codex pointed at the fake model. */
async function scratch(): Promise<{
  project: string;
  cairnHome: string;
  codexHome: string;
  env: Record<string, string>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-handoff-'));
  scratches.push(dir);
  const project = join(dir, 'project');
  const cairnHome = join(dir, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const { env } = await agentTestEnv('codex', model.url, dir);
  // Claude Code's sessions are the corpus's; codex's are those of the driven codex.
  return {
    project,
    cairnHome,
    codexHome: env.CODEX_HOME!,
    env: { ...env, CAIRN_HOME: cairnHome, CLAUDE_CONFIG_DIR: corpusPath('claude') },
  };
}

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

/** The session's links as `cairn sessions --json` lists them. */
async function listedLinks(
  env: Record<string, string>,
  agent: string,
  sid: string,
): Promise<Link[] | undefined> {
  const listed = await cairn(['sessions', '--json'], env);
  expect(listed.code, listed.stderr).toBe(0);
  const sessions = (
    JSON.parse(listed.stdout) as { sessions: { agent: string; id: string; links?: Link[] }[] }
  ).sessions;
  const found = sessions.find((s) => s.agent === agent && s.id === sid);
  expect(found, `${agent} ${sid} is listed`).toBeDefined();
  return found?.links;
}

async function summaryLinks(env: Record<string, string>, ref: string): Promise<Link[]> {
  const summary = await cairn(['summary', ref, '--json'], env);
  expect(summary.code, summary.stderr).toBe(0);
  return (JSON.parse(summary.stdout) as { links: Link[] }).links;
}

describe.skipIf(!corpus)('cairn handoff', () => {
  it('--dry-run prints the document and its size and sends nothing', async () => {
    const s = await scratch();
    const before = model.requests.length;
    const ran = await cairn(
      ['handoff', CLAUDE_SOURCE, '--to', 'codex', '--cwd', s.project, '--dry-run', '--json'],
      s.env,
    );
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout) as {
      document: string;
      tokens: number;
      bytes: number;
      items: number;
      from: { agent: string; sid: string };
      redacted: Record<string, number>;
    };
    expect(out.from).toEqual({ agent: 'claude-code', sid: CLAUDE_SOURCE });
    expect(out.document).toContain('# Hand-off of claude-code session `short`');
    expect(out.document).toContain('- selection: preset `howto`');
    expect(out.document).toContain(CLAUDE_PROMPT);
    expect(out.items).toBeGreaterThan(0);
    expect(out.bytes).toBe(Buffer.byteLength(out.document));
    expect(out.tokens).toBe(Math.ceil(out.bytes / 4));
    expect(out.redacted).toEqual({});
    // The plain form: the document on stdout, its size on stderr.
    const plain = await cairn(['handoff', CLAUDE_SOURCE, '--to', 'codex', '--dry-run'], s.env);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain(CLAUDE_PROMPT);
    expect(plain.stderr).toMatch(/\d+ items, .*, about \d+ tokens/);
    expect(plain.stderr).toContain('nothing sent (--dry-run)');
    // Nothing reached a model, no agent session was started and no link was kept.
    expect(model.requests.length).toBe(before);
    expect(existsSync(join(s.cairnHome, 'links.sqlite'))).toBe(false);
    expect(existsSync(join(s.codexHome, 'sessions'))).toBe(false);
  }, 60_000);

  it('starts codex with the Claude Code session as its first prompt, and links the two both ways', async () => {
    const s = await scratch();
    model.script({
      when: 'Hand-off of claude-code session',
      steps: [
        { kind: 'text', text: 'Picking up the Phoenix server problem.' },
        { kind: 'usage', input: 900, output: 8 },
      ],
    });
    const ran = await cairn(
      [
        'handoff',
        CLAUDE_SOURCE,
        '--to',
        'codex',
        '--cwd',
        s.project,
        '--prompt',
        'find why the server fails',
        '--json',
      ],
      s.env,
    );
    expect(ran.code, ran.stderr).toBe(0);

    // The model got the document: its header, what is asked and the source's items.
    const asked = model.mainRequests().filter((r) => bodyOf(r).includes('Hand-off of claude-code session'));
    expect(asked.length).toBeGreaterThan(0);
    const body = bodyOf(asked[0]!);
    expect(body).toContain('- from: claude-code session `short`');
    expect(body).toContain('find why the server fails');
    expect(body).toContain(CLAUDE_PROMPT);
    expect(body).toContain('Let me check the project structure and try running the server to see the error.');

    // The turn streamed as `cairn run --json` streams it.
    const reply = ran.lines
      .filter((l) => l.event === 'agent_message_chunk')
      .map((l) => (l.payload as { content?: { text?: string } }).content?.text ?? '')
      .join('');
    expect(reply).toContain('Picking up the Phoenix server problem.');
    const opened = ran.lines.find((l) => l.event === 'opened') as { nativeSessionId: string };
    const newSid = opened.nativeSessionId;
    expect(newSid).toMatch(/\S/);

    // The link, in handoff's own JSON, in both sessions' listing and summaries.
    const expected = {
      kind: 'handoff',
      from: { agent: 'claude-code', sid: CLAUDE_SOURCE },
      to: { agent: 'codex', sid: newSid },
      via: 'handoff',
    };
    const linked = ran.lines.find((l) => l.event === 'link') as { link: Link } | undefined;
    expect(linked?.link).toMatchObject(expected);
    expect(await listedLinks(s.env, 'claude-code', CLAUDE_SOURCE)).toEqual([linked!.link]);
    expect(await listedLinks(s.env, 'codex', newSid)).toEqual([linked!.link]);
    expect(await summaryLinks(s.env, CLAUDE_SOURCE)).toEqual([linked!.link]);
    expect(await summaryLinks(s.env, newSid)).toEqual([linked!.link]);
    // A session with no link lists none.
    expect(await listedLinks(s.env, 'claude-code', 'tool_heavy')).toBeUndefined();
    expect(await summaryLinks(s.env, 'tool_heavy')).toEqual([]);
  }, 240_000);

  it('redacts secrets in the document unless told not to, and says how many of which kind', async () => {
    // The corpus session copied into a home of its own, with a made-up key planted in its prompt.
    const home = mkdtempSync(join(tmpdir(), 'cairn-handoff-home-'));
    scratches.push(home);
    const folder = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(folder, { recursive: true });
    const source = readFileSync(corpusPath('claude/projects/-work-spotter/short.jsonl'), 'utf8');
    expect(source).toContain(CLAUDE_PROMPT);
    writeFileSync(
      join(folder, 'short.jsonl'),
      source.replace(CLAUDE_PROMPT, `${CLAUDE_PROMPT}; export AWS_ACCESS_KEY_ID=${PLANTED_KEY}`),
    );
    const env = { PATH: process.env.PATH ?? '', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude') };
    const redacted = await cairn(['handoff', CLAUDE_SOURCE, '--to', 'codex', '--dry-run', '--json'], env);
    expect(redacted.code, redacted.stderr).toBe(0);
    const doc = JSON.parse(redacted.stdout) as { document: string; redacted: Record<string, number> };
    expect(doc.redacted).toEqual({ 'AWS access key': 1 });
    expect(doc.document).not.toContain(PLANTED_KEY);
    expect(doc.document).toContain('AWS_ACCESS_KEY_ID=⟨redacted: AWS access key⟩');
    expect(doc.document).toContain('- secrets: 1 redacted');
    const kept = await cairn(['handoff', CLAUDE_SOURCE, '--to', 'codex', '--dry-run', '--no-redact'], env);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain(`AWS_ACCESS_KEY_ID=${PLANTED_KEY}`);
    expect(kept.stdout).toContain('- secrets: not redacted');
    expect(kept.stderr).toContain('not redacted: secrets are written as the session holds them');
  }, 60_000);

  it('refuses a project folder that is not here, naming it, and starts nothing', async () => {
    const s = await scratch();
    const before = model.requests.length;
    const ran = await cairn(['handoff', CLAUDE_SOURCE, '--to', 'codex'], s.env);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain('/home/marco/projects/spotter, is not a folder here: give --cwd DIR');
    const unknown = await cairn(['handoff', CLAUDE_SOURCE, '--to', 'codx', '--dry-run'], s.env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown agent 'codx' (did you mean codex?)");
    const noTarget = await cairn(['handoff', CLAUDE_SOURCE, '--dry-run'], s.env);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('missing --to <agent>');
    expect(model.requests.length).toBe(before);
  }, 60_000);
});

describe.skipIf(!corpus)('cairn fork', () => {
  it('forks a codex session at an item through a hand-off to codex, holding only the history up to it', async () => {
    const s = await scratch();
    // The source lives in the driven codex's own home, as a session of the user's would.
    const day = join(s.codexHome, 'sessions', '2026', '02', '23');
    mkdirSync(day, { recursive: true });
    copyFileSync(CODEX_SOURCE, join(day, basename(CODEX_SOURCE)));
    model.script({
      when: `Fork of codex session`,
      steps: [{ kind: 'text', text: 'Going on from the fork point.' }],
    });
    // Without --json, as a person runs it: the reply on stdout, what was done on stderr.
    const ran = await cairn(['fork', CODEX_SID, '--at', FORK_AT, '--cwd', s.project], s.env);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Going on from the fork point.');
    expect(ran.stderr).toMatch(/^forking 3 items, .* to codex$/m);

    const asked = model.mainRequests().filter((r) => bodyOf(r).includes('Fork of codex session'));
    expect(asked.length).toBeGreaterThan(0);
    const body = bodyOf(asked[0]!);
    expect(body).toContain(`from the start to \`${FORK_AT}\``);
    expect(body).toContain(FORK_AT_TEXT);
    expect(body).not.toContain(AFTER_FORK_TEXT);

    const said = /^linked: codex (\S+) carries on codex (\S+)$/m.exec(ran.stderr);
    expect(said?.[2]).toBe(CODEX_SID);
    const forkSid = said![1]!;
    expect(forkSid).not.toBe(CODEX_SID);
    const fromSource = await listedLinks(s.env, 'codex', CODEX_SID);
    expect(fromSource).toEqual([
      {
        kind: 'fork',
        from: { agent: 'codex', sid: CODEX_SID },
        to: { agent: 'codex', sid: forkSid },
        at_item: FORK_AT,
        // Codex's own fork takes no cut, so the history went as a document.
        via: 'handoff',
        created_at: expect.any(Number),
      },
    ]);
    expect(await listedLinks(s.env, 'codex', forkSid)).toEqual(fromSource);
    expect(await summaryLinks(s.env, CODEX_SID)).toEqual(fromSource);
    // The source file is as it was: a fork never writes into the session it came from.
    expect(readFileSync(join(day, basename(CODEX_SOURCE)))).toEqual(readFileSync(CODEX_SOURCE));
  }, 240_000);

  it('names an item the session does not hold', async () => {
    const s = await scratch();
    const ran = await cairn(['fork', CLAUDE_SOURCE, '--at', 'no-such-item', '--dry-run'], s.env);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("no item 'no-such-item' in claude-code session short");
  }, 60_000);
});
