// What one page of a big session's items costs the daemon (`transcript_items_read`, 1000 items at a
// time, at places spread over the session): a page cut only by position, taken from the items the
// daemon holds, against the same page cut by a time bound before the session's start, which builds
// the whole session's dump for every page. Each measured with the session's stream closed (read
// once and kept), then just opened by a reader, then open and settled.
// `node scripts/bench/items-page.mjs [--size MB] [--pages N]`
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBigRollout } from './big-rollout.mjs';
import { Client } from './client.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { untilReady } from './ready.mjs';
import { median, sleep } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const PAGE = 1000;
/** How long an opened stream is left to settle before its pages are measured again. */
const SETTLE_MS = 10_000;
const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

/** Per-page times (ms) of `pages` pages spread over `total` items, each asked with `extra` too. */
async function pageTimes(client, sid, total, pages, extra) {
  const times = [];
  for (let k = 0; k < pages; k++) {
    const offset = Math.floor((k * Math.max(0, total - PAGE)) / Math.max(1, pages - 1));
    const asked = performance.now();
    const reply = await client.request(
      'transcript_items_read',
      { sid, agent: 'codex', types: ALL_TYPES, limit: PAGE, cursor: `i:${offset}`, ...extra },
      10 * 60 * 1000,
    );
    if (!reply.ok) throw new Error(`transcript_items_read refused: ${JSON.stringify(reply.error)}`);
    times.push(performance.now() - asked);
  }
  return times;
}

async function run() {
  const { values } = parseArgs({
    options: { size: { type: 'string', default: '50' }, pages: { type: 'string', default: '10' } },
  });
  const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-items-page-'));
  let d;
  try {
    const r = writeBigRollout({ source, work, bytes: Number(values.size) * 1024 * 1024 });
    const sid = /([0-9a-f-]{36})\.jsonl$/.exec(r.path)[1];
    d = new Daemon({ cli, env: agentEnv(work) });
    await untilReady(d, 30 * 60 * 1000);
    const client = await Client.connect(await d.url);
    const first = await client.request(
      'transcript_items_read',
      { sid, agent: 'codex', types: ALL_TYPES, limit: 1 },
      10 * 60 * 1000,
    );
    if (!first.ok) throw new Error(`transcript_items_read refused: ${JSON.stringify(first.error)}`);
    const total = first.total;
    const pages = Number(values.pages);
    // A bound before the first item keeps every item but takes the dump's way.
    const dumped = { since_at: 0 };
    const row = (label, value) => console.log(`  ${label.padEnd(44)} ${value}`);
    const line = (times) =>
      `median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (${times.length} pages)`;
    console.log(
      `\npages of ${PAGE} items of a ${(r.bytes / 1024 / 1024).toFixed(0)} MB Codex rollout (${total} items):`,
    );
    row('stream closed: cut by position', line(await pageTimes(client, sid, total, pages, {})));
    row('stream closed: whole dump per page', line(await pageTimes(client, sid, total, pages, dumped)));
    // A reader holds the stream open while the pages are read.
    let shown;
    const history = new Promise((resolve) => {
      shown = resolve;
    });
    const reader = await Client.connect(await d.url, (f) => {
      if (f.type === 'transcript_ready' || f.type === 'transcript_ready_end' || f.type === 'error') shown(f);
    });
    const sub = await reader.request('topic_subscribe', { topic: `session:codex:${sid}` }, 10 * 60 * 1000);
    if (!sub.ok) throw new Error(`topic_subscribe refused: ${JSON.stringify(sub.error)}`);
    const end = await history;
    if (end.type === 'error') throw new Error(end.message);
    // Just opened, the daemon is still framing the history for the live tail beside the pages.
    row('stream just opened: cut by position', line(await pageTimes(client, sid, total, pages, {})));
    await sleep(SETTLE_MS);
    row('stream open, settled: cut by position', line(await pageTimes(client, sid, total, pages, {})));
    row(
      'stream open, settled: whole dump per page',
      line(await pageTimes(client, sid, total, pages, dumped)),
    );
    row('daemon peak', `${d.usage().peakRssMb.toFixed(0)} MB`);
    reader.close();
    client.close();
  } finally {
    await d?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await run();
} catch (e) {
  console.error(`bench: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  killAll();
}
