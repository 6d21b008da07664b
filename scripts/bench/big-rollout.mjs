// One very large Codex rollout: the corpus's largest rollout, its records repeated until the file
// reaches a size, then `cairn summary` of it and a cold index of a home that holds only it, each with
// its wall time and peak memory, then opening it in the reader on that daemon (time to its whole
// history, longest ping meanwhile); and `cairn summary` of a Claude Code session of the same size.
// A run that fails (out of memory, say) is reported as such.
// Alone: `node scripts/bench/big-rollout.mjs [--size MB]` (default 1024).
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { agentEnv } from './corpus.mjs';
import { Daemon } from './daemon.mjs';
import { openSession } from './open-session.mjs';
import { untilReady } from './ready.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
export const SOURCE =
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

/** Writes the rollout: the source's first line (session_meta) once, then its other lines over and over. */
export function writeBigRollout({ source, work, bytes }) {
  const lines = readFileSync(join(source, SOURCE), 'utf8').split('\n').filter(Boolean);
  const [meta, ...body] = lines;
  const path = join(work, 'codex', SOURCE.slice('codex/'.length));
  mkdirSync(dirname(path), { recursive: true });
  const block = `${body.join('\n')}\n`;
  const fd = openSync(path, 'w');
  try {
    let written = writeSync(fd, `${meta}\n`);
    // Each repetition with call ids of its own, as a long session has.
    for (let n = 1; written < bytes; n++) written += writeSync(fd, withOwnCallIds(block, n));
    return { path, bytes: written };
  } finally {
    closeSync(fd);
  }
}

/**
 * A rollout's lines with call ids of their own (`call_…` becomes `call_<tag>_…`), as a long
 * session's repeated calls have. Only the ids: the `call_id` key they sit under keeps its name,
 * or every call would lose its id and every output its call.
 */
export const withOwnCallIds = (text, tag) => text.replaceAll(/"call_(?!id")/g, `"call_${tag}_`);

const CLAUDE_SOURCE = 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl';

/** A Claude Code session of the corpus's largest main file repeated, each copy's ids its own. */
export function writeBigClaudeSession({ source, work, bytes }) {
  const one = readFileSync(join(source, CLAUDE_SOURCE), 'utf8');
  const path = join(work, 'claude/projects/-big', CLAUDE_SOURCE.split('/').pop());
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  try {
    let written = 0;
    for (let n = 1; written < bytes; n++)
      written += writeSync(
        fd,
        one
          .replaceAll('"msg_', `"msg_${n}_`)
          .replaceAll('"req_', `"req_${n}_`)
          .replaceAll('"uuid":"', `"uuid":"${n}-`),
      );
    return { path, bytes: written };
  } finally {
    closeSync(fd);
  }
}

/** Wall time (s) and peak RSS (MB) of a command, from GNU time; `error` when it failed. */
function timed(args, env) {
  const start = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], {
    env,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const lines = r.stderr.trim().split('\n');
  const rss = Number(lines.pop()) / 1024;
  const error =
    r.status === 0 ? undefined : (lines.find((l) => /heap|memory|Error/.test(l)) ?? `exit ${r.status}`);
  return { wall, rss, error };
}

export async function benchBigRollout({ source, sizeMb }) {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-big-'));
  const row = (label, value) => console.log(`  ${label.padEnd(40)} ${value}`);
  try {
    const { path, bytes } = writeBigRollout({ source, work, bytes: sizeMb * 1024 * 1024 });
    const env = agentEnv(work);
    console.log(`\none Codex rollout of ${(bytes / 1024 / 1024).toFixed(0)} MB:`);
    const summary = timed([cli, 'summary', path, '--json'], env);
    row(
      '5. summary of it',
      summary.error
        ? `FAILED after ${summary.wall.toFixed(1)} s, ${summary.rss.toFixed(0)} MB peak: ${summary.error}`
        : `${summary.wall.toFixed(2)} s  ${summary.rss.toFixed(0)} MB peak`,
    );
    const claude = writeBigClaudeSession({ source, work, bytes: sizeMb * 1024 * 1024 });
    const claudeSummary = timed([cli, 'summary', claude.path, '--json'], env);
    row(
      `5b. summary of a ${(claude.bytes / 1024 / 1024).toFixed(0)} MB Claude session`,
      claudeSummary.error
        ? `FAILED after ${claudeSummary.wall.toFixed(1)} s: ${claudeSummary.error}`
        : `${claudeSummary.wall.toFixed(2)} s  ${claudeSummary.rss.toFixed(0)} MB peak (read in chunks)`,
    );
    rmSync(join(work, 'claude'), { recursive: true, force: true });
    const d = new Daemon({ cli, env });
    try {
      const ready = await untilReady(d, 30 * 60 * 1000);
      const usage = d.usage();
      // The daemon names a session it could not read on a line of its own.
      const failed = d.lines.find((l) => /^index: codex \S+: /.test(l.text));
      if (failed) throw new Error(failed.text);
      row(
        '6. cold index of a home holding only it',
        `${(ready.readyMs / 1000).toFixed(2)} s  ${(bytes / 1024 / 1024 / (ready.readyMs / 1000)).toFixed(1)} MB/s  ${usage.peakRssMb.toFixed(0)} MB peak  longest unanswered ping ${ready.slowestPingMs.toFixed(0)} ms`,
      );
      const sid = /([0-9a-f-]{36})\.jsonl$/.exec(path)[1];
      // The peak of the opening alone, not the cold index's before it.
      d.resetPeak();
      const opened = await openSession(d, `session:codex:${sid}`, 30 * 60 * 1000);
      row(
        '7. opening it in the reader',
        opened.error
          ? `FAILED after ${(opened.historyMs / 1000).toFixed(1)} s: ${opened.error}`
          : `${(opened.historyMs / 1000).toFixed(2)} s to its whole history (${opened.items} items)  ${d.usage().peakRssMb.toFixed(0)} MB peak (of the opening)  longest ping ${opened.slowestPingMs.toFixed(0)} ms`,
      );
    } catch (e) {
      row('6. cold index of a home holding only it', `FAILED: ${String(e.message ?? e).split('\n')[0]}`);
    } finally {
      await d.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { size: { type: 'string', default: '1024' } } });
  const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
  if (!existsSync(source)) {
    console.error(`bench: no corpus at ${source} (set CAIRN_CORPUS)`);
    process.exit(1);
  }
  await benchBigRollout({ source, sizeMb: Number(values.size) });
}
