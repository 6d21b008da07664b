// What the server says of a session holds for the files as they are: a file written anew gives
// its new first prompt, live and after a restart; times come from the records in whole ms, and a
// session is active only when the server saw its files change.
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { type ListEntry, listSessions, nodePlatform, type SessionHead } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { trickyHome } from '../../transcript/test/tricky-home.js';
import { walkRoots } from '../src/reader/watcher.js';
import { Client, type Frame, homeEnv, serve, tempDir } from './helpers.js';

const SPOTTER = ['claude', 'projects', '-work-spotter'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WireHead = {
  agent: string;
  sid: string;
  path: string;
  first_prompt?: string;
  last_activity_at?: number;
  active: boolean;
};

async function list(server: Awaited<ReturnType<typeof serve>>): Promise<WireHead[]> {
  const c = await Client.open(server);
  const reply = await c.request('session_list', { limit: 1000 });
  await c.close();
  return reply.sessions as WireHead[];
}

/** The library's head of a Claude Code file's content, listed from a home of its own. */
async function libraryHead(content: Buffer): Promise<SessionHead> {
  const home = tempDir('cairn-expect-');
  const dir = join(home, '.claude', 'projects', '-p');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 's.jsonl'), content);
  const out: ListEntry[] = [];
  for await (const e of listSessions(nodePlatform({ homeDir: home, env: homeEnv(home) }))) out.push(e);
  return out.find((e): e is SessionHead => !('ref' in e))!;
}

/** The last line's timestamp of a JSONL file, as ms. */
const lastLineTime = (text: string): number =>
  Date.parse(
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { timestamp?: string })
      .findLast((r) => typeof r.timestamp === 'string')!.timestamp!,
  );

const upserted = (frames: Frame[], sid: string, test: (head: WireHead) => boolean): WireHead | undefined =>
  frames
    .filter((f) => f.type === 'session_upserted')
    .map((f) => f.head as WireHead)
    .findLast((h) => h.sid === sid && test(h));

describe.skipIf(!corpus)('a session file written anew', () => {
  const oldContent = readFileSync(corpusPath(...SPOTTER, 'short.jsonl'));
  const newContent = readFileSync(corpusPath(...SPOTTER, 'tool_heavy.jsonl'));

  it('gives the new first prompt at once, rewritten in place or replaced by another file', async () => {
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-src');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 's.jsonl');
    writeFileSync(file, oldContent);
    const server = await serve(homeEnv(home), { rescanMs: 60_000 });
    try {
      const before = (await libraryHead(oldContent)).firstPrompt!;
      const after = (await libraryHead(newContent)).firstPrompt!;
      expect(before).not.toBe(after);
      expect((await list(server))[0]).toMatchObject({ sid: 's', first_prompt: before });

      const c = await Client.open(server);
      await c.request('topic_subscribe', { topic: 'sessions' });
      // Rewritten in place: the same inode, and more bytes than before, as if it had grown.
      writeFileSync(file, newContent);
      await c.until((f) => upserted(f, 's', (h) => h.first_prompt === after) !== undefined);
      expect((await list(server))[0]).toMatchObject({ sid: 's', first_prompt: after });

      // Replaced by another file, the old content back.
      writeFileSync(`${file}.tmp`, oldContent);
      renameSync(`${file}.tmp`, file);
      await c.until((f) => upserted(f, 's', (h) => h.first_prompt === before) !== undefined);
      expect((await list(server))[0]).toMatchObject({ sid: 's', first_prompt: before });
      await c.close();
    } finally {
      await server.close();
    }
  });

  it('gives the new first prompt after a restart, the file rewritten in place while the server was down', async () => {
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-src');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 's.jsonl');
    writeFileSync(file, oldContent);
    const state = tempDir('cairn-state-');
    const first = await serve(homeEnv(home), { cairnHome: state });
    expect((await list(first))[0]?.first_prompt).toBe((await libraryHead(oldContent)).firstPrompt);
    await first.close();

    writeFileSync(file, newContent);
    const second = await serve(homeEnv(home), { cairnHome: state });
    try {
      expect((await list(second))[0]).toMatchObject({
        sid: 's',
        first_prompt: (await libraryHead(newContent)).firstPrompt,
        last_activity_at: lastLineTime(newContent.toString('utf8')),
      });
    } finally {
      await second.close();
    }
  });
});

describe.skipIf(!corpus)('a file rewritten in place past its first bytes', () => {
  it('is read anew: what its old end said is no longer found, what the new one says is', async () => {
    const lines = readFileSync(corpusPath(...SPOTTER, 'short.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const prompt = JSON.parse(lines.find((l) => l.includes('"type":"user"'))!) as Record<string, unknown>;
    const said = (word: string, uuid: string) =>
      JSON.stringify({ ...prompt, uuid, message: { role: 'user', content: `please look at ${word}` } });
    const start = `${lines.join('\n')}\n`;
    expect(start.length).toBeGreaterThan(8192);
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-src');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 's.jsonl');
    writeFileSync(file, `${start}${said('zanzibarquux', 'aaaaaaaa-0000-4000-8000-000000000001')}\n`);
    const server = await serve(homeEnv(home), { rescanMs: 60_000 });
    try {
      const hits = async (word: string) => {
        const c = await Client.open(server);
        const reply = await c.request('session_search', { query: word, targets: ['prompt'] });
        await c.close();
        return (reply.hits as unknown[]).length;
      };
      expect(await hits('zanzibarquux')).toBe(1);
      const c = await Client.open(server);
      await c.request('topic_subscribe', { topic: 'sessions' });
      // The same first bytes, another last record, and more of them: it looks as if it grew.
      writeFileSync(
        file,
        `${start}${said('otherwordxyzzy', 'aaaaaaaa-0000-4000-8000-000000000002')}\n${said('thirdwordplugh', 'aaaaaaaa-0000-4000-8000-000000000003')}\n`,
      );
      await c.until((f) => f.some((x) => x.type === 'session_upserted'));
      await server.catalog.settled();
      await c.close();
      expect(await hits('otherwordxyzzy')).toBe(1);
      expect(await hits('zanzibarquux')).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!corpus)('times and activity of copied sessions', () => {
  it('come from the records, whole ms, in their order; none is active until the server sees it grow', async () => {
    const home = tempDir();
    cpSync(corpusPath('claude'), join(home, '.claude'), { recursive: true });
    // A rollout cut in the middle of a turn, months ago: its last record is a tool call.
    const name = 'rollout-2025-10-21T20-02-50-019a085e-04c1-7f81-a09e-9555f6a1fb40.jsonl';
    const day = join(home, '.codex', 'sessions', '2025', '10', '21');
    mkdirSync(day, { recursive: true });
    const lines = readFileSync(corpusPath('codex', 'sessions', '2025', '10', '21', name), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const cut = lines.findIndex((l) => l.includes('"type":"function_call"'));
    expect(cut).toBeGreaterThan(0);
    writeFileSync(join(day, name), `${lines.slice(0, cut + 1).join('\n')}\n`);

    const server = await serve(homeEnv(home), { rescanMs: 60_000 });
    try {
      const heads = await list(server);
      expect(heads.length).toBe(7);
      for (const h of heads) {
        expect(h.active, h.path).toBe(false);
        expect(Number.isInteger(h.last_activity_at), h.path).toBe(true);
      }
      const rollout = heads.find((h) => h.agent === 'codex')!;
      expect(rollout.last_activity_at).toBe(lastLineTime(lines.slice(0, cut + 1).join('\n')));
      const short = heads.find((h) => h.sid === 'short')!;
      expect(short.last_activity_at).toBe(
        lastLineTime(readFileSync(corpusPath(...SPOTTER, 'short.jsonl'), 'utf8')),
      );
      // Newest record first.
      const times = heads.map((h) => h.last_activity_at!);
      expect(times).toEqual([...times].sort((a, b) => b - a));
      // Nothing changes by the clock alone.
      await sleep(50);
      expect((await list(server)).every((h) => !h.active)).toBe(true);

      const c = await Client.open(server);
      await c.request('topic_subscribe', { topic: 'sessions' });
      const record = JSON.parse(lines[cut + 1]!) as { timestamp: string };
      record.timestamp = '2026-06-01T12:00:00.500Z';
      appendFileSync(join(day, name), `${JSON.stringify(record)}\n`);
      await c.until((f) => upserted(f, rollout.sid, (h) => h.active) !== undefined);
      expect(upserted(c.frames, rollout.sid, (h) => h.active)).toMatchObject({
        last_activity_at: Date.parse(record.timestamp),
      });
      const now = await list(server);
      expect(now[0]).toMatchObject({
        sid: rollout.sid,
        active: true,
        last_activity_at: Date.parse(record.timestamp),
      });
      expect(now.filter((h) => h.active)).toHaveLength(1);
      await c.close();
    } finally {
      await server.close();
    }
  });

  it('lists a Claude Code session whose main file is gone, marked, as the library does', async () => {
    const home = tempDir();
    const project = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(project, { recursive: true });
    const sid = '4d5611e5-241a-462a-8d15-5122611a9569';
    cpSync(corpusPath(...SPOTTER, sid), join(project, sid), { recursive: true });
    const server = await serve(homeEnv(home), { rescanMs: 60_000 });
    try {
      const [head] = (await list(server)) as (WireHead & { files: string[]; main_file_missing?: boolean })[];
      const subagents = readdirSync(join(project, sid, 'subagents'))
        .filter((n) => n.endsWith('.jsonl'))
        .sort()
        .map((n) => join(project, sid, 'subagents', n));
      expect(head).toMatchObject({
        sid,
        path: join(project, `${sid}.jsonl`),
        files: subagents,
        main_file_missing: true,
      });
      const c = await Client.open(server);
      const summary = await c.request('session_summary_read', { sid });
      expect(summary).toMatchObject({ ok: true, summary: { turns: 0, subagents: subagents.length } });
      // The main file comes back: the same session, no longer marked.
      await c.request('topic_subscribe', { topic: 'sessions' });
      cpSync(corpusPath(...SPOTTER, `${sid}.jsonl`), join(project, `${sid}.jsonl`));
      await c.until((f) =>
        f.some(
          (x) =>
            x.type === 'session_upserted' &&
            (x.head as { files: string[] }).files[0] === join(project, `${sid}.jsonl`),
        ),
      );
      const [again] = (await list(server)) as (WireHead & { files: string[]; main_file_missing?: boolean })[];
      expect(again).toMatchObject({ sid, files: [join(project, `${sid}.jsonl`), ...subagents] });
      expect(again).not.toHaveProperty('main_file_missing');
      await c.close();
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!corpus)('a home of linked files and folders', () => {
  it('lists each session the library lists, once, a folder link back up the tree walked once', async () => {
    const home = trickyHome();
    const env = homeEnv(home);
    const expected: string[] = [];
    for await (const e of listSessions(nodePlatform({ homeDir: home, env })))
      if (!('ref' in e)) expected.push(`${e.agent} ${e.id} ${e.path} ${e.files.length}`);
    const server = await serve(env, { rescanMs: 60_000 });
    try {
      const heads = (await list(server)) as (WireHead & { files: string[] })[];
      expect(heads.map((h) => `${h.agent} ${h.sid} ${h.path} ${h.files.length}`).sort()).toEqual(
        expected.sort(),
      );
      expect(heads.some((h) => h.path.includes('/loop/'))).toBe(false);
      // The walk behind the watcher sees each rollout once, not again under the link's ever longer paths.
      const walked = [...(await walkRoots([join(home, '.codex', 'sessions')])).keys()];
      expect(walked.filter((p) => p.includes('/loop/'))).toEqual([]);
      expect(walked).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
