// A daemon started on its index takes every session's usage rows from it in the background, before
// anyone asks: the first `usage_read` then needs neither the index nor the files. Shown by taking the
// rows out of the index file behind the daemon's back (and the transcripts overwritten with noise):
// the reports are still those of the files as they were. A session the index writes later is
// counted again on its own, the others staying as they were kept.
import { appendFileSync, cpSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { usageWarming } from '../src/ops/usage.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';
import { claudeExchange } from './support/claude-lines.js';

type Row = Record<string, unknown>;

const KINDS = ['daily', 'session', 'blocks'] as const;
const TZ = 'Europe/Berlin';

async function report(client: Client, kind: string): Promise<Row> {
  const reply = await client.request('usage_read', { kind, timezone: TZ });
  expect(reply.ok, JSON.stringify(reply).slice(0, 300)).toBe(true);
  const { request_id: _id, at: _at, ...rest } = reply;
  return rest;
}

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));

/** A Claude Code prompt and the reply to it, whose request wrote `output` tokens. */
const exchange = (sessionId: string, i: number, at: number, output: number): string =>
  claudeExchange({
    sessionId,
    cwd: '/home/dev/later',
    i,
    at,
    usage: { input_tokens: 40, output_tokens: output },
  });

const running: { server: RunningServer; client: Client }[] = [];

async function start(env: Record<string, string>, cairnHome: string) {
  const server = await serve(env, { cairnHome, rescanMs: 500 });
  const client = await Client.open(server);
  running.push({ server, client });
  return { server, client };
}

afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    await client.close();
    await server.close();
  }
});

describe.skipIf(!corpus)('usage rows taken from the index at a start', () => {
  it('answers the first report from rows read before it was asked', async () => {
    const home = tempDir('cairn-usage-warm-');
    for (const [from, to] of [
      ['claude', '.claude'],
      ['codex', '.codex'],
      ['gemini', '.gemini'],
    ] as const)
      cpSync(corpusPath(from), join(home, to), { recursive: true });
    const env = homeEnv(home);
    const files = [join(home, '.claude'), join(home, '.codex'), join(home, '.gemini')].flatMap(filesUnder);
    // Whole seconds, so that the times set again below are the same to the nanosecond.
    const times = new Map(files.map((f) => [f, Math.floor(statSync(f).mtimeMs / 1000)]));
    for (const [f, t] of times) utimesSync(f, t, t);
    const state = tempDir('cairn-state-');

    const first = await start(env, state);
    const answers = new Map<string, Row>();
    for (const kind of KINDS) answers.set(kind, await report(first.client, kind));
    expect((answers.get('session')!.rows as Row[]).length).toBeGreaterThan(5);
    await first.client.close();
    await first.server.close();
    running.splice(0);

    // Noise of the same length and time in every file: to the index they are unchanged, and any
    // read of them would count nothing.
    for (const f of files) writeFileSync(f, Buffer.alloc(statSync(f).size, 'x'));
    for (const [f, t] of times) utimesSync(f, t, t);

    const second = await start(env, state);
    const warming = usageWarming(second.server.catalog);
    expect(warming, 'the daemon takes the usage rows from its index at a start').toBeDefined();
    await warming;
    // The rows gone from the index: a report that went to it, or to the files, would count nothing.
    const db = new Database(join(state, 'index.sqlite'));
    try {
      db.exec('DELETE FROM usage_requests; DELETE FROM usage_sessions;');
    } finally {
      db.close();
    }
    for (const kind of KINDS) expect(await report(second.client, kind), kind).toEqual(answers.get(kind));

    // A session that starts now is read by the index and counted; the others stay as they were.
    const sessionId = '0c0ffee0-0000-4000-8000-00000000a3a3';
    const dir = join(home, '.claude', 'projects', '-home-dev-later');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${sessionId}.jsonl`);
    const at = Date.parse('2026-03-04T10:00:00Z');
    writeFileSync(file, exchange(sessionId, 0, at, 1_234));
    const output = (r: Row) => (r.totals as Row).outputTokens as number;
    const before = output(answers.get('daily')!);
    let daily = await report(second.client, 'daily');
    for (let tries = 0; tries < 200 && output(daily) === before; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      daily = await report(second.client, 'daily');
    }
    expect(output(daily)).toBe(before + 1_234);
    appendFileSync(file, exchange(sessionId, 1, at + 60_000, 66));
    for (let tries = 0; tries < 200 && output(daily) === before + 1_234; tries++) {
      await new Promise((r) => setTimeout(r, 100));
      daily = await report(second.client, 'daily');
    }
    expect(output(daily)).toBe(before + 1_234 + 66);
    const day = (daily.rows as Row[]).find((r) => r.key === '2026-03-04');
    expect(day?.outputTokens).toBe(1_300);
  }, 240_000);
});
