// Every op over the corpus, through a real server and a real WebSocket: the replies keep the
// protocol's shapes, and listing, search, summary and dump give what the library gives.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { basename } from 'node:path';
import {
  OP_FIXTURES,
  OP_NAMES,
  type OpName,
  opErrors,
  SNIPPET_MARK_END,
  SNIPPET_MARK_START,
  validateResponse,
} from '@cairn/protocol';
import {
  BUILTIN_PRESETS,
  buildDump,
  classifyTranscript,
  listSessions,
  loadTranscript,
  nodePlatform,
  type SessionHead,
  summarizeSession,
  type Transcript,
} from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, corpusEnv, type Frame, serve } from './helpers.js';

describe.skipIf(!corpus)('ops over the corpus', () => {
  let server: RunningServer;
  let client: Client;
  let env: Record<string, string>;
  let heads: SessionHead[];
  /** A long Claude Code session with subagents. */
  let big: SessionHead;
  let bigTranscript: Transcript;
  const platform = () => nodePlatform({ env, homeDir: env.HOME });

  beforeAll(async () => {
    env = corpusEnv();
    server = await serve(env);
    client = await Client.open(server);
    heads = [];
    for await (const e of listSessions(platform())) if (!('ref' in e)) heads.push(e);
    big = heads.find((h) => h.agent === 'claude-code' && h.files.length > 2)!;
    const loaded = await loadTranscript(platform(), { agent: big.agent, path: big.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    bigTranscript = loaded.value;
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  /** A fixture's request with the fixture's made-up session replaced by a corpus one. */
  function realRequest(op: OpName): Record<string, unknown> {
    const {
      request_id: _id,
      op: _op,
      ...args
    } = structuredClone(OP_FIXTURES[op].request) as Record<string, unknown>;
    const subagent = bigTranscript.agents.find(
      (a) => a.parentId !== undefined && !a.id.startsWith('acompact'),
    )!;
    if ('sid' in args) args.sid = big.id;
    if ('agent' in args) args.agent = big.agent;
    if ('agent_id' in args) args.agent_id = subagent.id;
    if ('since_at' in args) delete args.since_at;
    if ('preset' in args) args.preset = BUILTIN_PRESETS[0]!.name;
    if (op === 'topic_subscribe') {
      args.topic = `session:${big.agent}:${big.id}`;
      delete args.after_seq;
    }
    if (op === 'transcript_read') args.after = 0;
    return args;
  }

  /** Ops a session read from disk is refused by, with the code each answers. */
  const REFUSED_FOR_A_CORPUS_SESSION: Partial<Record<OpName, string>> = {
    session_kill: 'unsupported',
    session_fork_origin: 'unsupported',
  };

  it('answers every op of the table in its response schema, or with a refusal the table lists', async () => {
    for (const op of OP_NAMES) {
      if (op === 'shutdown') continue;
      const c = op === 'hello' ? await Client.open(server, { hello: false }) : client;
      const reply = await c.request(op, realRequest(op));
      const refused = REFUSED_FOR_A_CORPUS_SESSION[op];
      if (refused !== undefined) {
        expect(reply, op).toMatchObject({ ok: false, error: { code: refused } });
        expect(opErrors(op)).toContain(refused);
        continue;
      }
      expect(reply.ok, `${op}: ${JSON.stringify(reply).slice(0, 400)}`).toBe(true);
      const valid = validateResponse(op, reply);
      expect(valid.ok, `${op}: ${JSON.stringify(valid)}`).toBe(true);
      if (c !== client) await c.close();
    }
  });

  it('takes every dump request the contract takes, and answers a name that names nothing not_found', async () => {
    const base = { sid: big.id, agent: big.agent };
    const cases: [Record<string, unknown>, string][] = [
      [{ agent_id: '../../etc/passwd' }, '/agent_id'],
      [{ agent_id: '' }, '/agent_id'],
      [{ since_uuid: '' }, '/since_uuid'],
      [{ until_uuid: 'no-such-record' }, '/until_uuid'],
      [{ preset: 'no such preset' }, '/preset'],
      [{ types: ['@nosuchpreset'] }, '/types'],
    ];
    for (const [args, field] of cases) {
      const reply = await client.request('session_dump_write', { ...base, ...args });
      expect(reply, JSON.stringify(args)).toMatchObject({ ok: false, error: { code: 'not_found', field } });
      expect(opErrors('session_dump_write')).toContain('not_found');
    }
    // The contract's arguments are open: a field this server does not know is ignored.
    const open = await client.request('session_dump_write', {
      ...base,
      preset: 'file',
      from_a_newer_client: 1,
    });
    expect(open.ok).toBe(true);
    const presets = await client.request('dump_presets_read', { verbose: true });
    expect(presets.ok).toBe(true);
  });

  it('answers the session ops for a session it only reads: its environment, no end, no last-live entry', async () => {
    const env = await client.request('session_env_read', { sid: big.id, agent: big.agent });
    expect(env).toMatchObject({ ok: true, sid: big.id, agent: big.agent, driven: false });
    if (big.cwd !== undefined) expect(env.cwd).toBe(big.cwd);
    expect(validateResponse('session_env_read', env).ok).toBe(true);
    const nobody = '00000000-0000-4000-8000-000000000000';
    for (const op of ['session_kill', 'session_env_read', 'session_fork_origin'] as const) {
      expect(await client.request(op, { sid: nobody }), op).toMatchObject({
        ok: false,
        error: { code: 'not_found' },
      });
    }
    expect(await client.request('session_last_live_remove', { sid: nobody })).toMatchObject({
      ok: true,
      removed: false,
    });
  });

  it('names the bad field of an invalid request', async () => {
    const tooSmall = await client.request('session_list', { limit: 0 });
    expect(tooSmall).toMatchObject({ ok: false, error: { code: 'invalid_args', field: '/limit' } });
    const misspelt = await client.request('session_search', { qurey: 'ledger' });
    expect(misspelt.ok).toBe(false);
    expect((misspelt.error as { code: string }).code).toBe('invalid_args');
    expect(['/query', '/qurey']).toContain((misspelt.error as { field: string }).field);
    const badType = await client.request('transcript_read', { sid: big.id, after: 'start' });
    expect(badType).toMatchObject({ ok: false, error: { code: 'invalid_args', field: '/after' } });
    const both = await client.request('transcript_read', { sid: big.id, after: 0, before: 10 });
    expect(both).toMatchObject({ ok: false, error: { code: 'invalid_args', field: '/after' } });
  });

  it('answers hello_required before hello, unknown_op and bad_request as the table says', async () => {
    const fresh = await Client.open(server, { hello: false });
    expect(await fresh.request('session_list')).toMatchObject({
      ok: false,
      error: { code: 'hello_required' },
    });
    expect(await fresh.request('ping')).toMatchObject({ ok: true });
    expect(await fresh.request('no_such_op')).toMatchObject({ ok: false, error: { code: 'unknown_op' } });
    await fresh.request('hello', { role: 'user', protocol_version: 1 });
    expect(await fresh.request('hello', { role: 'user', protocol_version: 1 })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
    const notJson = new Promise<Frame>((resolve) =>
      fresh.ws.once('message', (d) => resolve(JSON.parse(d.toString()))),
    );
    fresh.ws.send('{not json');
    expect(await notJson).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    await fresh.close();
  });

  it('keeps a session connection to its own session', async () => {
    const own = await Client.open(server, { hello: false });
    await own.request('hello', { role: 'session', sid: big.id, protocol_version: 1 });
    const other = heads.find((h) => h.id !== big.id)!;
    expect(await own.request('session_summary_read', { sid: other.id })).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(await own.request('session_summary_read', { sid: big.id })).toMatchObject({ ok: true });
    expect(await own.request('session_list')).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    await own.close();
  });

  it('lists the sessions the library lists, newest activity first', async () => {
    const reply = await client.request('session_list', { limit: 1000 });
    const listed = reply.sessions as Record<string, unknown>[];
    expect(reply.total).toBe(heads.length);
    const key = (agent: unknown, sid: unknown) => `${agent}:${sid}`;
    expect(new Set(listed.map((h) => key(h.agent, h.sid)))).toEqual(
      new Set(heads.map((h) => key(h.agent, h.id))),
    );
    for (const head of heads) {
      const got = listed.find((h) => h.agent === head.agent && h.sid === head.id)!;
      expect(got.path).toBe(head.path);
      expect(got.files).toEqual(head.files);
      expect(got.size).toBe(head.size);
      expect(got.cwd).toBe(head.cwd);
      expect(got.first_prompt).toBe(head.firstPrompt);
      if (head.title !== undefined) expect(got.title).toBe(head.title);
    }
    const times = listed.map((h) => (h.last_activity_at as number) ?? 0);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const codexOnly = await client.request('session_list', { agents: ['codex'] });
    expect((codexOnly.sessions as { agent: string }[]).every((h) => h.agent === 'codex')).toBe(true);
    expect(codexOnly.total).toBe(heads.filter((h) => h.agent === 'codex').length);
  });

  it('finds a word of a corpus prompt, with the match marked and a link to an item of that session', async () => {
    const reply = await client.request('session_search', { query: 'pomodoro', targets: ['prompt'] });
    const hits = reply.hits as { target: string; snippet: string; sid: string; item_uuid: string }[];
    expect(hits.length).toBeGreaterThan(0);
    expect(reply.partial).toBe(false);
    for (const hit of hits) {
      expect(hit.target).toBe('prompt');
      expect(hit.snippet.toLowerCase()).toContain(`${SNIPPET_MARK_START}pomodoro${SNIPPET_MARK_END}`);
    }
    // The link lands on an item the session really has.
    const hit = hits[0]!;
    const head = heads.find((h) => h.id === hit.sid)!;
    const loaded = await loadTranscript(platform(), { agent: head.agent, path: head.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const classified = classifyTranscript(loaded.value);
    if (!classified.ok) throw new Error(classified.error.message);
    expect(classified.value.items.map((i) => i.uuid)).toContain(hit.item_uuid);
  });

  it('leaves tool output out of a search when asked, and that changes the hits', async () => {
    const all = (await client.request('session_search', { query: 'transcript', limit: 500 })).hits as {
      target: string;
    }[];
    const withoutOutput = (
      await client.request('session_search', {
        query: 'transcript',
        targets: ['prompt', 'assistant', 'thinking', 'tool_input'],
        limit: 500,
      })
    ).hits as { target: string }[];
    expect(all.some((h) => h.target === 'tool_output')).toBe(true);
    expect(withoutOutput.every((h) => h.target !== 'tool_output')).toBe(true);
    expect(withoutOutput.length).toBeLessThan(all.length);
    const onlyOutput = (
      await client.request('session_search', { query: 'transcript', targets: ['tool_output'], limit: 500 })
    ).hits as { target: string }[];
    expect(onlyOutput.length + withoutOutput.length).toBe(all.length);
  });

  it('answers the summary the library computes', async () => {
    for (const head of heads) {
      const reply = await client.request('session_summary_read', {
        sid: head.id,
        agent: head.agent,
        prompts: true,
      });
      const expected = await summarizeSession(
        platform(),
        { agent: head.agent, path: head.path },
        { prompts: true },
      );
      if (!expected.ok) throw new Error(expected.error.message);
      expect(reply.summary, `${head.agent} ${head.id}`).toEqual({
        ...expected.value,
        prompts: expected.value.prompts ?? [],
      });
    }
  });

  it('writes the dump the library builds, and serves it as JSON and Markdown', async () => {
    const args = { sid: big.id, agent: big.agent, preset: 'file', no_thinking: true };
    const reply = await client.request('session_dump_write', args);
    expect(reply.ok).toBe(true);
    const written = JSON.parse(readFileSync(reply.path as string, 'utf8'));
    const built = buildDump(bigTranscript, args, { presets: BUILTIN_PRESETS, writtenAt: written.written_at });
    if (!built.ok) throw new Error(built.error.message);
    expect(written.items).toEqual(JSON.parse(JSON.stringify(built.value.file.items)));
    expect(reply.entries).toEqual(built.value.entries);
    const name = basename(reply.path as string);
    const md = await httpGet(server, `/dumps/${name}?format=md&download=1`);
    expect(md.status).toBe(200);
    expect(md.type).toContain('text/markdown');
    expect(md.disposition).toContain('attachment');
    expect(md.body.length).toBeGreaterThan(100);
    const json = await httpGet(server, `/dumps/${name}?format=json`);
    expect(JSON.parse(json.body)).toEqual(written);
  });

  it('reads records back by byte range, forwards and backwards', async () => {
    const first = await client.request('transcript_read', { sid: big.id, after: 0, max_bytes: 2000 });
    const lines = first.lines as string[];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) JSON.parse(line);
    const next = await client.request('transcript_read', { sid: big.id, after: first.end, max_bytes: 2000 });
    expect(next.start).toBe(first.end);
    const back = await client.request('transcript_read', {
      sid: big.id,
      before: next.start,
      max_bytes: 2000,
    });
    expect(back.end).toBe(next.start);
    expect((back.lines as string[]).at(-1)).toBe(lines.at(-1));
    const sub = bigTranscript.agents.find((a) => a.parentId !== undefined)!;
    const subRead = await client.request('transcript_read', {
      sid: big.id,
      agent_id: sub.id,
      max_bytes: 100,
    });
    expect(subRead.file).not.toBe(big.path);
  });
});

function httpGet(
  server: RunningServer,
  path: string,
): Promise<{ status: number; type: string; disposition: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, path, headers: { authorization: `Bearer ${server.token}` } },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            disposition: String(res.headers['content-disposition']),
            body,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
