// Append-to-client latency: a real Claude Code session copied, cut short, into an agent home that a
// running daemon watches; a WebSocket client follows its stream while the rest of its lines are
// appended one by one. Each line's latency runs from its write to the arrival of the first frame
// carrying an item of its record (items keep their record's uuid). Lines that make no item (progress
// notes, snapshots) are counted apart.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from './client.mjs';
import { files, rewrite } from './corpus.mjs';
import { sleep } from './stats.mjs';

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

/** The record uuids a frame carries items of: the items' own, or a prompt's message id. */
function uuidsOf(f) {
  const out = [];
  const items = (list) => {
    for (const i of list ?? []) if (typeof i?.uuid === 'string') out.push(i.uuid);
  };
  if (typeof f.item?.uuid === 'string') out.push(f.item.uuid);
  if (typeof f.message?.id === 'string') out.push(f.message.id);
  if (f.type === 'session_ready') items(f.history);
  if (f.type === 'history_chunk')
    items(f.messages ?? JSON.parse(gunzipSync(Buffer.from(f.payload, 'base64')).toString('utf8')));
  return out;
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
    if (f.type === 'session_ready' || f.type === 'session_ready_end') done();
  });
  try {
    await client.request('topic_subscribe', { topic });
    await Promise.race([finished, sleep(30_000)]);
  } finally {
    client.close();
  }
  return uuids;
}

/**
 * Runs one scenario on a daemon that already lists `session`.
 * @returns latencies (ms) of the lines that caused a frame, and counts of the others
 */
export async function measureAppends({ daemon, session, intervalMs = 30, settleMs = 10_000 }) {
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
  let ready;
  const gotHistory = new Promise((resolve) => {
    ready = resolve;
  });
  const onFrame = (f, at) => {
    if (f.type === 'session_ready' || f.type === 'session_ready_end') {
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
    await Promise.race([gotHistory, sleep(30_000)]);
    if (!historySeen) throw new Error('no session history within 30 s');
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
    return { appends: n, latencies, noItem, lost, historyResends, early };
  } finally {
    closeSync(fd);
    client.close();
  }
}
