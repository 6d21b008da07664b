// Append-to-client latency: a real Claude Code session copied, cut short, into an agent home that a
// running daemon watches; a WebSocket client follows its stream while the rest of its lines are
// appended one by one. Each line's latency runs from its write to the arrival of the first frame
// carrying an item of its record (items keep their record's uuid). Lines that make no item (progress
// notes, snapshots) are counted apart.
//
// Alone, `node scripts/bench/append-latency.mjs [--lines 1000,10000,100000] [--appends N]
// [--interval MS]` measures sessions of those lengths side by side on one daemon: each is the real
// session's lines replicated with fresh ids up to its length, then followed while `appends` more
// lines are written. The cost of an append must not grow with the history before it.
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Client } from './client.mjs';
import { agentEnv, files, rewrite } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { untilReady, untilSessions } from './ready.mjs';
import { percentile, sleep, within } from './stats.mjs';

/** The lines of a JSONL text, each with its newline. */
const splitLines = (text) => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];

/**
 * Writes the cut-short copy of a session (and its subagent files, whole) under `claudeHome`, as
 * replica `replica` of it (its own ids); answers what the run needs.
 */
export function prepareSession({ source, claudeHome, project, prefixLines, appends, replica }) {
  const sid = rewrite(source.sid, replica);
  const lines = splitLines(rewrite(readFileSync(source.path, 'utf8'), replica));
  const cut = prefixLines < 0 ? Math.max(0, lines.length - appends) : prefixLines;
  const appended = lines.slice(cut, cut + appends);
  const dir = join(claudeHome, 'projects', project);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${sid}.jsonl`);
  writeFileSync(path, lines.slice(0, cut).join(''));
  const sideDir = source.path.replace(/\.jsonl$/, '');
  if (existsSync(sideDir)) {
    for (const f of files(sideDir)) {
      const out = join(dir, sid, rewrite(f.slice(sideDir.length + 1), replica));
      mkdirSync(join(out, '..'), { recursive: true });
      writeFileSync(out, rewrite(readFileSync(f, 'utf8'), replica));
    }
  }
  return { sid, path, appended, cut };
}

/**
 * Writes a session of `lines` lines under `claudeHome`: the source session's lines replicated one
 * copy after another, each copy with its own ids (replicas from `replica` on), and `appends` more
 * lines of a further copy to append while it is followed. Answers what measureAppends needs.
 */
export function prepareLongSession({ source, claudeHome, project, lines, appends, replica }) {
  const text = readFileSync(source.path, 'utf8');
  const sid = rewrite(source.sid, replica);
  const history = [];
  for (let copy = 0; history.length < lines; copy++) {
    for (const line of splitLines(rewrite(text, replica + copy))) {
      if (history.length === lines) break;
      history.push(line);
    }
  }
  const fresh = splitLines(rewrite(text, replica + 9_999));
  // The first lines of one of the source's subagents, as a new subagent of this session.
  const sideDir = source.path.replace(/\.jsonl$/, '');
  const subFile = existsSync(sideDir)
    ? files(sideDir).find((f) => /\/agent-a[0-9a-f]+\.jsonl$/.test(f) && !f.includes('acompact'))
    : undefined;
  let subagent;
  if (subFile) {
    const oldId = /agent-(a[0-9a-f]+)\.jsonl$/.exec(subFile)[1];
    const id = `b${replica.toString(16)}`;
    const subLines = splitLines(rewrite(readFileSync(subFile, 'utf8'), replica + 9_998)).slice(0, 3);
    subagent = { id, lines: subLines.map((l) => l.replaceAll(oldId, id)) };
  }
  // From the middle of a copy: replies, tool calls and results rather than the session's opening.
  const from = Math.max(0, Math.min(fresh.length - appends, Math.floor(fresh.length / 3)));
  const appended = fresh.slice(from, from + appends);
  const dir = join(claudeHome, 'projects', project);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${sid}.jsonl`);
  writeFileSync(path, history.join(''));
  return { sid, path, appended, cut: history.length, subagent };
}

/** The record uuids a frame carries items of: the items' own, or a prompt's message id. */
function uuidsOf(f) {
  const out = [];
  const items = (list) => {
    for (const i of list ?? []) if (typeof i?.uuid === 'string') out.push(i.uuid);
  };
  if (typeof f.item?.uuid === 'string') out.push(f.item.uuid);
  if (typeof f.message?.id === 'string') out.push(f.message.id);
  if (f.type === 'transcript_ready') items(f.history);
  if (f.type === 'transcript_chunk')
    items(f.messages ?? JSON.parse(gunzipSync(Buffer.from(f.payload, 'base64')).toString('utf8')));
  return out;
}

/**
 * Times a client resuming the stream after `afterSeq`, as one back from a dropped connection does:
 * from its subscription to the run_state frame that ends what it is sent.
 */
async function resumeMs(server, topic, afterSeq) {
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  const client = await Client.connect(server, (f) => {
    if (f.type === 'run_state') done();
  });
  try {
    const start = performance.now();
    await client.request('topic_subscribe', { topic, after_seq: afterSeq });
    await within(finished, 30_000);
    return performance.now() - start;
  } finally {
    client.close();
  }
}

/** The record uuids of a session's history, as a new subscriber receives it. */
async function historyUuids(server, topic) {
  const uuids = new Set();
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  const client = await Client.connect(server, (f) => {
    for (const u of uuidsOf(f)) uuids.add(u);
    if (f.type === 'transcript_ready' || f.type === 'transcript_ready_end') done();
  });
  try {
    await client.request('topic_subscribe', { topic });
    await within(finished, 30_000);
  } finally {
    client.close();
  }
  return uuids;
}

/**
 * Runs one scenario on a daemon that already lists `session`.
 * @returns latencies (ms) of the lines that caused a frame, and counts of the others
 */
export async function measureAppends({
  daemon,
  session,
  intervalMs = 30,
  settleMs = 10_000,
  historyTimeoutMs = 30_000,
  quietBeforeMs = 0,
}) {
  const { port, token } = await daemon.url;
  const n = session.appended.length;
  const lineOf = new Map();
  const kinds = [];
  const uuids = [];
  session.appended.forEach((text, i) => {
    let record;
    try {
      record = JSON.parse(text);
    } catch {
      record = {};
    }
    kinds.push(String(record.type ?? '?'));
    uuids.push(record.uuid);
    if (typeof record.uuid === 'string') lineOf.set(record.uuid, i);
  });
  const writtenAt = new Array(n).fill(undefined);
  const arrivedAt = new Array(n).fill(undefined);
  let historyResends = 0;
  let early = 0;
  let historySeen = false;
  let lastSeq = -1;
  let ready;
  const gotHistory = new Promise((resolve) => {
    ready = resolve;
  });
  const laneFrames = new Map();
  const onFrame = (f, at) => {
    if (typeof f.agent_id === 'string' && !laneFrames.has(f.agent_id)) laneFrames.set(f.agent_id, at);
    if (typeof f.seq === 'number' && f.type !== 'run_state') lastSeq = Math.max(lastSeq, f.seq);
    if (f.type === 'transcript_ready' || f.type === 'transcript_ready_end') {
      if (historySeen) historyResends++;
      historySeen = true;
      ready();
    }
    for (const uuid of uuidsOf(f)) {
      const line = lineOf.get(uuid);
      if (line === undefined || arrivedAt[line] !== undefined) continue;
      if (writtenAt[line] === undefined) early++;
      else arrivedAt[line] = at;
    }
  };
  const client = await Client.connect({ port, token }, onFrame);
  const fd = openSync(session.path, 'a');
  try {
    const topic = `session:claude-code:${session.sid}`;
    const sub = await client.request('topic_subscribe', { topic });
    if (!sub.ok) throw new Error(`topic_subscribe refused: ${JSON.stringify(sub.error)}`);
    await within(gotHistory, historyTimeoutMs);
    if (!historySeen) throw new Error(`no session history within ${historyTimeoutMs / 1000} s`);
    // The daemon settles after sending a long history (its garbage, the index catching up) before
    // the appends, so that what is measured is the tail, not the subscription.
    if (quietBeforeMs > 0) await sleep(quietBeforeMs);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const due = t0 + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      writtenAt[i] = performance.now();
      writeSync(fd, session.appended[i]);
    }
    // Bounded wait for the last frames; a line whose record makes no item never gets one.
    const deadline = performance.now() + settleMs;
    let last = -1;
    for (;;) {
      const got = arrivedAt.filter((a) => a !== undefined).length;
      if (performance.now() > deadline || (got === last && performance.now() - writtenAt[n - 1] > 2_000))
        break;
      last = got;
      await sleep(500);
    }
    // Clients back from a dropped connection, each after the last few events it saw.
    const resumes = [];
    for (let i = 0; i < RESUMES; i++) resumes.push(await resumeMs({ port, token }, topic, lastSeq - 20));
    const newLane = session.subagent ? await newLaneMs({ port, token }, session, laneFrames) : undefined;
    await client.request('topic_unsubscribe', { topic });
    // A line never streamed but in the history a new subscriber gets would be a lost append.
    const history = await historyUuids({ port, token }, topic);
    const latencies = [];
    const noItem = {};
    let lost = 0;
    for (let i = 0; i < n; i++) {
      if (arrivedAt[i] !== undefined) latencies.push(arrivedAt[i] - writtenAt[i]);
      else if (history.has(uuids[i])) lost++;
      else noItem[kinds[i]] = (noItem[kinds[i]] ?? 0) + 1;
    }
    const byLine = writtenAt.map((w, i) => ({
      kind: kinds[i],
      ms: arrivedAt[i] === undefined ? undefined : arrivedAt[i] - w,
    }));
    return { appends: n, latencies, noItem, lost, historyResends, early, byLine, resumes, newLane };
  } finally {
    closeSync(fd);
    client.close();
  }
}

/**
 * Writes the session's new subagent file and times its lane's first frame on the followed stream,
 * and the longest a ping from another client waits meanwhile (what the daemon stalls everyone for).
 */
async function newLaneMs(server, session, laneFrames) {
  const pinger = await Client.connect(server);
  let stall = 0;
  let pinging = true;
  const pings = (async () => {
    while (pinging) {
      const t = performance.now();
      await pinger.request('ping');
      stall = Math.max(stall, performance.now() - t);
      await sleep(20);
    }
  })();
  const dir = join(session.path.replace(/\.jsonl$/, ''), 'subagents');
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  writeFileSync(join(dir, `agent-${session.subagent.id}.jsonl`), session.subagent.lines.join(''));
  while (!laneFrames.has(session.subagent.id) && performance.now() - t0 < 10_000) await sleep(5);
  const at = laneFrames.get(session.subagent.id);
  await sleep(500);
  pinging = false;
  await pings;
  pinger.close();
  return { ms: at === undefined ? Number.NaN : at - t0, stall };
}

/** Resumes timed after the appends of each scenario. */
const RESUMES = 7;

/** Measures sessions of several lengths side by side on one daemon, and prints p50/p95 per length. */
async function main() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const { values } = parseArgs({
    options: {
      lines: { type: 'string', default: '1000,10000,100000' },
      appends: { type: 'string', default: '200' },
      interval: { type: 'string', default: '30' },
      cli: { type: 'string', default: join(root, 'bin/cairn.js') },
    },
  });
  const corpus = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
  const sid = '4d5611e5-241a-462a-8d15-5122611a9569';
  const source = { sid, path: join(corpus, 'claude/projects/-work-spotter', `${sid}.jsonl`) };
  const sizes = values.lines.split(',').map(Number);
  const appends = Number(values.appends);
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-append-'));
  const cleanup = () => {
    killAll();
    rmSync(work, { recursive: true, force: true });
  };
  process.on('exit', cleanup);
  const env = agentEnv(work);
  mkdirSync(join(env.CLAUDE_CONFIG_DIR, 'projects'), { recursive: true });
  const daemon = new Daemon({ cli: values.cli, env });
  const rows = [];
  try {
    await untilReady(daemon, 120_000);
    const sessions = sizes.map((lines, i) =>
      prepareLongSession({
        source,
        claudeHome: env.CLAUDE_CONFIG_DIR,
        project: '-bench-long',
        lines,
        appends,
        replica: (i + 1) * 100_000,
      }),
    );
    await untilSessions(daemon, sessions.length, 30 * 60_000);
    for (const [i, session] of sessions.entries()) {
      // A long history takes a while to read and send whole before the appends begin.
      const r = await measureAppends({
        daemon,
        session,
        intervalMs: Number(values.interval),
        historyTimeoutMs: 10 * 60_000,
        quietBeforeMs: 3_000,
      });
      rows.push({ lines: sizes[i], ...r });
    }
  } finally {
    await daemon.stop();
  }
  console.log(
    'append → frame latency, by the length of the session appended to (appends from 3 s after its history):',
  );
  console.log(
    `  ${'lines'.padStart(8)}  ${'p50'.padStart(9)}  ${'p95'.padStart(9)}  ${'max'.padStart(9)}  reached  (resume p50; new subagent: first frame, longest ping)`,
  );
  const ms = (x) => `${Number.isFinite(x) ? x.toFixed(1) : '?'} ms`;
  for (const r of rows) {
    const p95 = percentile(r.latencies, 95);
    console.log(
      `  ${String(r.lines).padStart(8)}  ${ms(percentile(r.latencies, 50)).padStart(9)}  ${ms(p95).padStart(9)}  ${ms(Math.max(...r.latencies)).padStart(9)}  ${r.latencies.length}/${r.appends}${p95 < 50 ? '' : '  MISSES p95 < 50 ms'}${r.lost ? `  ${r.lost} LOST` : ''}${r.historyResends ? `  history sent again ${r.historyResends}x` : ''}  (${ms(percentile(r.resumes, 50))}${r.newLane ? `; ${ms(r.newLane.ms)}, ${ms(r.newLane.stall)}` : ''})`,
    );
  }
  const p95s = rows.map((r) => percentile(r.latencies, 95));
  if (p95s.length > 1)
    console.log(`  p95 longest / shortest: ${(p95s[p95s.length - 1] / p95s[0]).toFixed(2)}x (flat is ≈ 1)`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
