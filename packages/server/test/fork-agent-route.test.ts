// `POST /api/sessions/handoff` for a fork with `via: 'agent'`, on the real daemon driving the real
// Claude Code adapter (installed through cairn's own install path, outside the repository) against
// the fake model on 127.0.0.1: three turns, then a fork from the middle prompt made by the agent's
// own fork, linked both ways as such; without `via` the same fork is a hand-off, as before.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionLink } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import {
  type FakeModel,
  type RecordedRequest,
  startFakeModel,
} from '../../runner/test/support/fake-model.js';
import { LOCAL_WORKSTATION, startLocalDrive } from '../src/drive/local-drive.js';
import type { RunningServer } from '../src/index.js';
import { readLinks } from '../src/storage/links-store.js';
import { serve } from './helpers.js';

const TURNS = [
  { prompt: 'Route question one about rivers', answer: 'Rivers run to the sea.' },
  { prompt: 'Route question two about mountains', answer: 'Mountains are folded rock.' },
  { prompt: 'Route question three about deserts', answer: 'Deserts get little rain.' },
] as const;

let model: FakeModel;
let server: RunningServer | undefined;
let dir: string;
let project: string;
let cairnHome: string;
let env: Record<string, string>;
let sid: string;
let sourceFile: string;

/** One turn in a drive of its own, as `cairn run` takes it: in a new session or the one given. */
async function runTurn(prompt: string, nativeSessionId?: string): Promise<string> {
  const drive = await startLocalDrive({ cairnHome, env });
  try {
    const opened = await drive.server.open({
      workstation: LOCAL_WORKSTATION,
      agentKey: 'claude-code',
      bridge: 'claude-code',
      cwd: project,
      ...(nativeSessionId ? { nativeSessionId } : {}),
    });
    if (!opened.ok || !opened.nativeSessionId) throw new Error(`not opened: ${opened.error}`);
    const ended = new Promise<Record<string, unknown>>((resolve) => {
      drive.server.subscribe(opened.sessionRef, (notice) => {
        if (notice.kind === 'lost') resolve({ status: 'lost', error: notice.error });
        else if (notice.event.eventName === 'agent_turn_done') resolve(notice.event.payload);
      });
    });
    drive.server.prompt(opened.sessionRef, prompt);
    expect(await ended).toMatchObject({ status: 'completed' });
    drive.server.closeSession(opened.sessionRef);
    return opened.nativeSessionId;
  } finally {
    await drive.close();
  }
}

function transcriptFile(home: string, id: string): string {
  const projects = join(home, '.claude', 'projects');
  for (const folder of readdirSync(projects)) {
    if (readdirSync(join(projects, folder)).includes(`${id}.jsonl`))
      return join(projects, folder, `${id}.jsonl`);
  }
  throw new Error(`no transcript of ${id} under ${projects}`);
}

function promptUuid(file: string, prompt: string): string {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { type?: string; uuid?: string; message?: { content?: unknown } };
    const content = r.message?.content;
    const text = Array.isArray(content)
      ? content.map((b: { text?: string }) => b.text ?? '').join('')
      : String(content ?? '');
    if (r.type === 'user' && typeof r.uuid === 'string' && text === prompt) return r.uuid;
  }
  throw new Error(`no prompt '${prompt}' in ${file}`);
}

async function postFork(via?: 'agent'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL('/api/sessions/handoff', `http://127.0.0.1:${server!.port}`), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server!.token}` },
    body: JSON.stringify({
      agent: 'claude-code',
      handoff: {
        sid,
        agent: 'claude-code',
        kind: 'fork',
        until_uuid: promptUuid(sourceFile, TURNS[1].prompt),
        preset: 'howto',
      },
      cwd: project,
      ...(via ? { via } : {}),
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const bodyOf = (r: RecordedRequest): string => JSON.stringify(r.body);

beforeAll(async () => {
  const agentsHome = await ensureTestAgents();
  model = await startFakeModel();
  dir = mkdtempSync(join(tmpdir(), 'cairn-fork-route-'));
  project = join(dir, 'project');
  cairnHome = join(dir, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  env = (await agentTestEnv('claude-code', model.url, dir)).env;
  for (const turn of TURNS) {
    model.script({ when: turn.prompt, steps: [{ kind: 'text', text: turn.answer }] });
    const id = await runTurn(turn.prompt, sid);
    sid ??= id;
  }
  sourceFile = transcriptFile(env.HOME!, sid);
  server = await serve(env, { cairnHome });
  await server.drive.wire.waitForWorkstation('local');
  // The chat knows the agents once the workstation has said which it has.
  for (let i = 0; i < 200 && !server.drive.wire.roster('local').some((b) => b.key === 'claude-code'); i++)
    await new Promise((r) => setTimeout(r, 50));
}, 600_000);

afterAll(async () => {
  await server?.close();
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a fork started from the daemon', () => {
  it('goes through Claude Code’s own fork when asked, holding only the turns before the prompt', async () => {
    const at = promptUuid(sourceFile, TURNS[1].prompt);
    const forkedAnswer = 'Mountains, asked again in the fork.';
    model.script({ when: TURNS[1].prompt, steps: [{ kind: 'text', text: forkedAnswer }] });
    const asked = model.requests.length;
    const { status, body } = await postFork('agent');
    expect(status, JSON.stringify(body)).toBe(200);
    const link = body.link as SessionLink;
    expect(link).toEqual({
      kind: 'fork',
      from: { agent: 'claude-code', sid },
      to: { agent: 'claude-code', sid: expect.any(String) },
      at_item: at,
      via: 'agent',
      created_at: expect.any(Number),
    });
    expect(link.to.sid).not.toBe(sid);
    // The chat opens on the fork with its past read from the fork's files: the first turn, then
    // the prompt asked again.
    expect((body.session as { messageCount: number }).messageCount).toBe(3);

    // The model is asked in the fork (the chat answered once the prompt was taken) with the first
    // turn and the prompt again, nothing after.
    const request = await model.waitForRequest(
      (r) => !r.auxiliary && model.requests.indexOf(r) >= asked && bodyOf(r).includes(TURNS[1].prompt),
      60_000,
    );
    const sent = bodyOf(request);
    expect(sent).toContain(TURNS[0].answer);
    expect(sent.split(TURNS[1].prompt).length - 1).toBe(1);
    expect(sent).not.toContain(TURNS[1].answer);
    expect(sent).not.toContain(TURNS[2].prompt);
    expect(sent).not.toContain('Fork of claude-code session');

    // The fork's own transcript, written by the agent: the turn before the cut, then the new one.
    const forkedFile = transcriptFile(env.HOME!, link.to.sid);
    await expect.poll(() => readFileSync(forkedFile, 'utf8'), { timeout: 60_000 }).toContain(forkedAnswer);
    const forked = readFileSync(forkedFile, 'utf8');
    expect(forked).toContain(TURNS[0].answer);
    expect(forked).not.toContain(TURNS[2].prompt);

    // Kept both ways, as the daemon's op reads them.
    expect(readLinks(cairnHome, { sid })).toEqual([link]);
    expect(readLinks(cairnHome, { sid: link.to.sid })).toEqual([link]);
  }, 300_000);

  it('hands the history off without `via`, as the reader’s fork does', async () => {
    model.script({
      when: 'Fork of claude-code session',
      steps: [{ kind: 'text', text: 'From the document.' }],
    });
    const { status, body } = await postFork();
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.link).toMatchObject({ kind: 'fork', from: { agent: 'claude-code', sid }, via: 'handoff' });
    await model.waitForRequest(
      (r) => !r.auxiliary && bodyOf(r).includes('Fork of claude-code session'),
      60_000,
    );
  }, 300_000);
});
