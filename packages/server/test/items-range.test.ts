// `transcript_items_read` pages a lane from the items the daemon holds for the session: over a corpus
// session with subagents, every page of every selection, read in turn, makes exactly the dump of
// the same arguments; a page starts at an offset or around a record (a link's target) and says
// where; with the session's stream open the pages are the history the stream sent, and a line
// appended since shows in the next page read.
import { appendFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { BUILTIN_PRESETS, buildDump, loadTranscript, nodePlatform, type Transcript } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, type Frame, homeEnv, itemsSeen, serve, tempDir } from './helpers.js';

/** The frames with each gzipped history chunk opened, as a client reads them. */
const unzipped = (frames: Frame[]): Frame[] =>
  frames.map((f) =>
    f.type === 'transcript_chunk' && typeof f.payload === 'string'
      ? { ...f, messages: JSON.parse(gunzipSync(Buffer.from(f.payload, 'base64')).toString('utf8')) }
      : f,
  );

const PROJECT = '-work-spotter';
/** 3.3 MB of Claude Code with two subagents. */
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const LANE = 'aa84377';
const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

/** The selections a client pages with: the reader's, a dump's default, and narrower ones. */
const SELECTIONS: Record<string, unknown>[] = [
  { types: ALL_TYPES },
  {},
  { types: ['tool', '-tool:Bash'] },
  { no_thinking: true, no_agent: true },
];

describe.skipIf(!corpus)('paging a lane of a session', () => {
  let server: RunningServer;
  let client: Client;
  let transcript: Transcript;
  let file: string;

  beforeAll(async () => {
    const home = tempDir('cairn-home-');
    const dir = join(home, '.claude', 'projects', PROJECT);
    mkdirSync(dir, { recursive: true });
    file = join(dir, `${SID}.jsonl`);
    cpSync(corpusPath('claude', 'projects', PROJECT, `${SID}.jsonl`), file);
    cpSync(corpusPath('claude', 'projects', PROJECT, SID), join(dir, SID), { recursive: true });
    const env = homeEnv(home);
    const loaded = await loadTranscript(nodePlatform({ env, homeDir: home }), {
      agent: 'claude-code',
      path: file,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    transcript = loaded.value;
    server = await serve(env);
    client = await Client.open(server);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  /** Every page of a read, in turn, `limit` items each. */
  async function readAll(args: Record<string, unknown>, limit: number) {
    const items: TranscriptItem[] = [];
    let cursor: string | undefined;
    let first: Record<string, unknown> | undefined;
    let pages = 0;
    do {
      const reply = await client.request('transcript_items_read', {
        sid: SID,
        agent: 'claude-code',
        ...args,
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      });
      expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
      first ??= reply;
      items.push(...(reply.items as TranscriptItem[]));
      cursor = reply.next_cursor as string | undefined;
      pages++;
    } while (cursor !== undefined);
    return { items, first: first!, pages };
  }

  const dumpOf = (args: Record<string, unknown>) => {
    const built = buildDump(
      transcript,
      { sid: SID, agent: 'claude-code', ...args } as Parameters<typeof buildDump>[1],
      { presets: BUILTIN_PRESETS, writtenAt: 0 },
    );
    if (!built.ok) throw new Error(built.error.message);
    return built.value;
  };

  for (const lane of [undefined, LANE]) {
    for (const selection of SELECTIONS) {
      it(`pages ${lane ?? 'the main lane'} with ${JSON.stringify(selection)} as the dump has it`, async () => {
        const args = { ...selection, ...(lane === undefined ? {} : { agent_id: lane }) };
        const dump = dumpOf(args);
        expect(dump.file.items.length).toBeGreaterThan(0);
        const read = await readAll(args, 97);
        expect(read.pages).toBe(Math.ceil(dump.file.items.length / 97));
        expect(read.items).toEqual(dump.file.items);
        expect(read.first.total).toBe(dump.file.items.length);
        expect(read.first.entries).toEqual(dump.entries);
        expect(read.first.types).toEqual(dump.file.types);
      });
    }
  }

  it('names the ids of a page, and refuses an unknown subagent as the dump does', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      limit: 50,
      cursor: 'i:100',
      with_ids: true,
    });
    expect(reply.ok).toBe(true);
    expect((reply.items as unknown[]).length).toBe(50);
    expect(Array.isArray(reply.ids)).toBe(true);
    const unknown = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      agent_id: 'no-such-agent',
    });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('starts a page at an offset, or around a record, and says where it starts', async () => {
    const all = dumpOf({ types: ALL_TYPES }).file.items;
    const at = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      offset: all.length - 10,
      limit: 50,
    });
    expect(at).toMatchObject({ ok: true, offset: all.length - 10, total: all.length });
    expect(at.items).toEqual(all.slice(-10));
    expect(at.next_cursor).toBeUndefined();

    // A late record of a subagent's lane, as a search hit names it: the page holds it, about halfway.
    const lane = dumpOf({ types: ALL_TYPES, agent_id: LANE }).file.items;
    const target = lane[lane.length - 3]!;
    const around = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      agent_id: LANE,
      types: ALL_TYPES,
      around_uuid: target.uuid,
      limit: 20,
    });
    expect(around.ok).toBe(true);
    const first = lane.findIndex((i) => i.uuid === target.uuid);
    expect(around.offset).toBe(Math.max(0, first - 10));
    expect(around.items).toEqual(lane.slice(around.offset as number, (around.offset as number) + 20));

    // The same within a range bounded by time, which the dump cuts.
    const bounded = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      since_at: 0,
      around_uuid: all[500]!.uuid,
      limit: 100,
    });
    expect(bounded.offset).toBe(all.findIndex((i) => i.uuid === all[500]!.uuid) - 50);
    expect((bounded.items as TranscriptItem[]).some((i) => i.uuid === all[500]!.uuid)).toBe(true);

    const missing = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      around_uuid: 'no-such-record',
    });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found', field: '/around_uuid' } });
    const both = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      offset: 3,
      cursor: 'i:3',
    });
    expect(both).toMatchObject({ ok: false, error: { code: 'invalid_args' } });
  });

  it('keeps a range bounded by record as the dump cuts it', async () => {
    const all = dumpOf({ types: ALL_TYPES }).file.items;
    const since = all[Math.floor(all.length / 2)]!.uuid;
    const args = { types: ALL_TYPES, since_uuid: since };
    const read = await readAll(args, 500);
    expect(read.items).toEqual(dumpOf(args).file.items);
    expect(read.items.length).toBeLessThan(all.length);
  });

  it('pages the history the stream sent, and what was appended since', { timeout: 60_000 }, async () => {
    const subscribed = await client.request('topic_subscribe', { topic: `session:claude-code:${SID}` });
    expect(subscribed.ok).toBe(true);
    await client.until((f) =>
      f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
    );
    const history = itemsSeen(unzipped(client.frames));
    const before = await readAll({ types: ALL_TYPES }, 1000);
    expect(before.items).toEqual(history);

    const lastUuid = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"uuid"'))
      .map((l) => (JSON.parse(l) as { uuid: string }).uuid)
      .at(-1);
    const text = 'a prompt appended while the session was open';
    appendFileSync(
      file,
      `${JSON.stringify({
        type: 'user',
        uuid: 'appended-0001',
        parentUuid: lastUuid,
        sessionId: SID,
        timestamp: new Date().toISOString(),
        cwd: '/home/dev/spotter',
        message: { role: 'user', content: text },
      })}\n`,
    );
    await client.until(
      (f) => f.some((x) => (x.item as { text?: string } | undefined)?.text === text),
      20_000,
    );
    const after = await readAll({ types: ALL_TYPES }, 1000);
    expect(after.items.length).toBeGreaterThan(history.length);
    expect(after.items.slice(0, history.length).map((i) => i.uuid)).toEqual(history.map((i) => i.uuid));
    expect(after.items.some((i) => (i as { text?: string }).text === text)).toBe(true);
    expect(after.items).toEqual(itemsSeen(unzipped(client.frames)));
  });
});
