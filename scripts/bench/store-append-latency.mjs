// Append-to-client latency for a session kept in a SQLite store (OpenCode's `opencode.db`): a
// running daemon follows one session of the store while rows are written to it as the agent writes
// them (WAL mode, one connection kept open). Each append is a user message and its text part, in
// one transaction; its latency runs from the commit to the first frame naming the part. Sessions of
// several lengths live in the same store, each followed in turn: the cost of an append must not
// grow with the rows before it, since a live read takes only the rows that changed.
//
// `node scripts/bench/store-append-latency.mjs [--messages 200,2000,20000] [--appends N]
// [--interval MS]`; bin/cairn.js must be built (`npm run build`).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Client } from './client.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { storeSupport } from './more-corpus.mjs';
import { untilReady } from './ready.mjs';
import { percentile, sleep, within } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const T0 = 1_760_000_000_000;

/** OpenCode's schema, kept with the tests that make stores. */
const storeSchema = async () => (await storeSupport()).STORE_SCHEMA;

/** Rows as OpenCode writes them: a message, then its parts, the session touched. */
class StoreWriter {
  constructor(db, schema) {
    this.conn = new Database(db);
    this.conn.pragma('journal_mode = WAL');
    this.conn.exec(schema);
    this.message = this.conn.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    );
    this.part = this.conn.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.touch = this.conn.prepare('UPDATE session SET time_updated = ? WHERE id = ?');
  }

  session(sid, at) {
    this.conn
      .prepare(
        `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         VALUES (?, 'bench', ?, '/tmp/bench', ?, '1.0.0', ?, ?)`,
      )
      .run(sid, sid, `bench ${sid}`, at, at);
  }

  /** One exchange: a user prompt, then an assistant reply with its text and the step's tokens. */
  exchange(sid, n, at) {
    const user = `msg_${sid}_${String(n).padStart(6, '0')}u`;
    const reply = `msg_${sid}_${String(n).padStart(6, '0')}a`;
    const data = (o) => JSON.stringify(o);
    this.message.run(user, sid, at, at, data({ role: 'user', time: { created: at } }));
    this.part.run(
      `prt_${user}`,
      user,
      sid,
      at,
      at,
      data({ type: 'text', text: `question ${n} about the bench` }),
    );
    this.message.run(
      reply,
      sid,
      at + 1,
      at + 2,
      data({ role: 'assistant', modelID: 'gpt-4o-mini', time: { created: at + 1, completed: at + 2 } }),
    );
    this.part.run(`prt_${reply}_1`, reply, sid, at + 1, at + 1, data({ type: 'text', text: `answer ${n}` }));
    this.part.run(
      `prt_${reply}_2`,
      reply,
      sid,
      at + 2,
      at + 2,
      data({
        type: 'step-finish',
        reason: 'stop',
        tokens: { input: 100, output: 10, cache: { read: 0, write: 0 } },
      }),
    );
  }

  /** An append as the bench times it: a user prompt and its text part; answers the part's id. */
  prompt(sid, n, at) {
    const id = `msg_${sid}_live${String(n).padStart(5, '0')}`;
    const part = `prt_${id}`;
    this.conn.transaction(() => {
      this.message.run(id, sid, at, at, JSON.stringify({ role: 'user', time: { created: at } }));
      this.part.run(part, id, sid, at, at, JSON.stringify({ type: 'text', text: `live prompt ${n}` }));
      this.touch.run(at, sid);
    })();
    return part;
  }
}

/** Follows `sid` and times each append from its commit to the first frame that names its part. */
async function measure({ daemon, writer, sid, appends, intervalMs }) {
  const { port, token } = await daemon.url;
  const arrivedAt = new Map();
  let ready;
  const gotHistory = new Promise((r) => {
    ready = r;
  });
  const live = new RegExp(`prt_msg_${sid}_live\\d{5}`, 'g');
  const client = await Client.connect({ port, token }, (f, at) => {
    if (f.type === 'transcript_ready' || f.type === 'transcript_ready_end') ready();
    if (f.type === 'transcript_ready' || f.type === 'transcript_chunk') return;
    for (const m of JSON.stringify(f).matchAll(live)) if (!arrivedAt.has(m[0])) arrivedAt.set(m[0], at);
  });
  try {
    const topic = `session:opencode:${sid}`;
    const sub = await client.request('topic_subscribe', { topic });
    if (!sub.ok) throw new Error(`topic_subscribe refused: ${JSON.stringify(sub.error)}`);
    await within(gotHistory, 10 * 60_000);
    await sleep(3_000);
    const written = [];
    const t0 = performance.now();
    for (let i = 0; i < appends; i++) {
      const wait = t0 + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      const part = writer.prompt(sid, i, T0 + 10_000_000 + i * 1000);
      written.push({ part, at: performance.now() });
    }
    const deadline = performance.now() + 10_000;
    while (arrivedAt.size < appends && performance.now() < deadline) await sleep(100);
    await client.request('topic_unsubscribe', { topic });
    return written.map((w) => (arrivedAt.has(w.part) ? arrivedAt.get(w.part) - w.at : Number.NaN));
  } finally {
    client.close();
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '200,2000,20000' },
      appends: { type: 'string', default: '100' },
      interval: { type: 'string', default: '50' },
      cli: { type: 'string', default: join(root, 'bin/cairn.js') },
    },
  });
  const sizes = values.messages.split(',').map(Number);
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-store-append-'));
  process.on('exit', () => {
    killAll();
    rmSync(work, { recursive: true, force: true });
  });
  const env = { ...agentEnv(work), XDG_DATA_HOME: join(work, 'home', '.local', 'share') };
  const data = join(env.XDG_DATA_HOME, 'opencode');
  mkdirSync(data, { recursive: true });
  const db = join(data, 'opencode.db');
  const writer = new StoreWriter(db, await storeSchema());
  writer.conn
    .prepare("INSERT INTO project (id, worktree, time_created, time_updated) VALUES ('bench', '/', 0, 0)")
    .run();
  // Each session's exchanges (two messages and three parts each), interleaved as agents at work at
  // the same time write them.
  const sids = sizes.map((n, i) => `ses_bench${i}_${n}`);
  writer.conn.transaction(() => {
    for (const sid of sids) writer.session(sid, T0);
    for (let n = 0; n < Math.max(...sizes) / 2; n++)
      for (const [i, sid] of sids.entries()) if (n < sizes[i] / 2) writer.exchange(sid, n, T0 + n * 1000);
  })();
  const daemon = new Daemon({ cli: values.cli, env });
  const rows = [];
  try {
    await untilReady(daemon, 10 * 60_000);
    for (const [i, sid] of sids.entries()) {
      const ms = await measure({
        daemon,
        writer,
        sid,
        appends: Number(values.appends),
        intervalMs: Number(values.interval),
      });
      rows.push({ messages: sizes[i], ms });
    }
  } finally {
    await daemon.stop();
    writer.conn.close();
  }
  const text = (x) => `${Number.isFinite(x) ? x.toFixed(1) : '?'} ms`;
  console.log('append → frame latency on an OpenCode store session, by the messages before the appends:');
  console.log(
    `  ${'messages'.padStart(8)}  ${'p50'.padStart(9)}  ${'p95'.padStart(9)}  ${'max'.padStart(9)}  reached`,
  );
  for (const r of rows) {
    const got = r.ms.filter(Number.isFinite);
    const p95 = percentile(got, 95);
    console.log(
      `  ${String(r.messages).padStart(8)}  ${text(percentile(got, 50)).padStart(9)}  ${text(p95).padStart(9)}  ${text(Math.max(...got)).padStart(9)}  ${got.length}/${r.ms.length}${p95 < 50 ? '' : '  MISSES p95 < 50 ms'}`,
    );
  }
  const p95s = rows.map((r) => percentile(r.ms.filter(Number.isFinite), 95));
  if (p95s.length > 1)
    console.log(`  p95 longest / shortest: ${(p95s[p95s.length - 1] / p95s[0]).toFixed(2)}x (flat is ≈ 1)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
