// The usage reports from the index. Each session's requests are kept when the index reads it: a
// restarted daemon answers `usage_read` without reading a transcript (its files are overwritten
// with noise of the same size and time, and the numbers stay those of the files as they were), a
// session that grows is counted again, and `cairn usage --json` gives the same numbers, counted by
// the daemon when one runs and from the files when none does.
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';
import { claudeExchange } from './support/claude-lines.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

type Row = Record<string, unknown>;

/** `cairn usage … --json` without blocking this process, which may hold the daemon that answers it. */
function cli(args: string[], env: Record<string, string>, cairnHome: string): Promise<Row> {
  return new Promise((done, fail) => {
    execFile(
      process.execPath,
      [bin, 'usage', ...args, '--json', '--breakdown'],
      { env: { PATH: process.env.PATH, ...env, CAIRN_HOME: cairnHome }, maxBuffer: 256 << 20 },
      (err, stdout, stderr) =>
        err ? fail(new Error(`${err.message}\n${stderr}`)) : done(JSON.parse(stdout)),
    );
  });
}

const KINDS = ['daily', 'weekly', 'monthly', 'session', 'blocks'] as const;
const TZ = 'Asia/Kolkata';

/** The report without the moment it was made. */
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

const running: { server?: RunningServer; client?: Client }[] = [];

async function start(env: Record<string, string>, cairnHome: string) {
  const server = await serve(env, { cairnHome });
  const client = await Client.open(server);
  running.push({ server, client });
  return { server, client };
}

afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    await client?.close();
    await server?.close();
  }
});

describe.skipIf(!corpus)('usage reports from the index', () => {
  it('answers after a restart from the index alone, with the numbers of cairn usage', async () => {
    const home = tempDir('cairn-usage-index-');
    cpSync(corpusPath('claude'), join(home, '.claude'), { recursive: true });
    cpSync(corpusPath('codex'), join(home, '.codex'), { recursive: true });
    cpSync(corpusPath('gemini'), join(home, '.gemini'), { recursive: true });
    const env = homeEnv(home);
    const files = [join(home, '.claude'), join(home, '.codex'), join(home, '.gemini')].flatMap(filesUnder);
    // Whole seconds, so that the times set again below are the same to the nanosecond.
    const times = new Map(files.map((f) => [f, Math.floor(statSync(f).mtimeMs / 1000)]));
    for (const [f, t] of times) utimesSync(f, t, t);
    const stamps = () => files.map((f) => [f, statSync(f).size, statSync(f).mtimeMs, statSync(f).ino]);
    const before = stamps();
    const state = tempDir('cairn-state-');

    const first = await start(env, state);
    const answers = new Map<string, Row>();
    for (const kind of KINDS) answers.set(kind, await report(first.client, kind));
    expect((answers.get('session')!.rows as Row[]).length).toBeGreaterThan(5);
    expect(answers.get('daily')!.errors).toBeUndefined();
    // Counted from the files, with no daemon for its home: the same numbers.
    const fromFiles = await cli(['daily', '--timezone', TZ], env, join(home, '.cairn-cli'));
    const daily = answers.get('daily')!;
    expect(fromFiles.totals).toEqual(daily.totals);
    expect((fromFiles.daily as Row[]).map((r) => [r.date, r.totalTokens, r.totalCost])).toEqual(
      (daily.rows as Row[]).map((r) => [r.key, r.totalTokens, r.totalCost]),
    );
    await first.client.close();
    await first.server.close();
    running.splice(0);

    // Noise of the same length in every file, its time set back: to the index they are unchanged,
    // and any read of them would count other numbers (or none).
    for (const f of files) writeFileSync(f, Buffer.alloc(statSync(f).size, 'x'));
    for (const [f, t] of times) utimesSync(f, t, t);
    expect(stamps()).toEqual(before);

    const second = await start(env, state);
    for (const kind of KINDS) expect(await report(second.client, kind), kind).toEqual(answers.get(kind));
    // The CLI asks the daemon of its home: the numbers of the files as they were.
    const viaDaemon = await cli(['daily', '--timezone', TZ], env, state);
    expect(viaDaemon).toEqual(fromFiles);
    // Without the daemon the CLI reads the noise: no request is left to count.
    const noise = await cli(['daily', '--timezone', TZ], env, join(home, '.cairn-cli-2'));
    expect((noise.totals as Row).totalTokens).toBe(0);
  }, 240_000);
});

/** A Claude Code line pair: a prompt, and a reply whose request used `output` tokens. */
const exchange = (sessionId: string, i: number, at: number, output: number): string =>
  claudeExchange({
    sessionId,
    cwd: '/home/dev/grow',
    i,
    at,
    model: i % 2 === 0 ? 'claude-sonnet-4-5-20250929' : 'claude-opus-4-1-20250805',
    usage: {
      input_tokens: 30,
      output_tokens: output,
      cache_read_input_tokens: 2_000 * i,
      cache_creation_input_tokens: 400,
    },
  });

describe('a session that grows', () => {
  it('is counted again, as cairn usage counts it from the files', async () => {
    const home = tempDir('cairn-usage-grow-');
    const env = homeEnv(home);
    const sessionId = '0c0ffee0-0000-4000-8000-0000000060a1';
    const dir = join(home, '.claude', 'projects', '-home-dev-grow');
    const file = join(dir, `${sessionId}.jsonl`);
    // 23:30 and 00:30 in the report's zone, then a request a day later: a day of its own.
    const t0 = Date.parse('2026-03-02T18:00:00Z');
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, exchange(sessionId, 0, t0, 700) + exchange(sessionId, 1, t0 + 3_600_000, 800));
    const { server, client } = await start(env, tempDir('cairn-state-'));
    const key = `claude-code:${file}`;
    const kept = () => {
      const usage = server.catalog.usage().get(key);
      return usage && 'requests' in usage ? usage.requests.map((r) => r.usage.outputTokens) : [];
    };
    expect(kept()).toEqual([700, 800]);
    const before = await report(client, 'daily');

    appendFileSync(file, exchange(sessionId, 2, t0 + 30 * 3_600_000, 900));
    // The index reads the session again and keeps its requests anew.
    for (let tries = 0; tries < 150 && kept().length < 3; tries++)
      await new Promise((r) => setTimeout(r, 100));
    expect(kept()).toEqual([700, 800, 900]);
    const after = await report(client, 'daily');
    const tokens = (r: Row) => (r.totals as Row).outputTokens as number;
    expect(tokens(after) - tokens(before)).toBe(900);
    expect((after.rows as Row[]).length).toBe((before.rows as Row[]).length + 1);
    const fromFiles = await cli(['daily', '--timezone', TZ], env, join(home, '.cairn-cli'));
    expect(fromFiles.totals).toEqual(after.totals);
    expect(
      (fromFiles.daily as Row[]).map((r) => [r.date, r.outputTokens, r.totalCost, r.modelsUsed]),
    ).toEqual((after.rows as Row[]).map((r) => [r.key, r.outputTokens, r.totalCost, r.modelsUsed]));
  }, 120_000);
});
