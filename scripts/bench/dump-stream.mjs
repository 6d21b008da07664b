// `cairn show` and `cairn dump` of one very large Codex rollout (the corpus's largest, repeated to a
// size): for each command the time to its first byte of output, its wall time and its peak memory,
// the median of a few runs. The events view of `show` and the item views are measured apart: the
// events view holds back the events a compaction still to come would mark, the item views what a
// call's result still to come would change.
// Alone: `node scripts/bench/dump-stream.mjs [--size MB] [--runs N] [--cli path/to/cairn.js]`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { writeBigRollout } from './big-rollout.mjs';
import { agentEnv } from './corpus.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * One run: ms to the first byte on stdout, ms to exit, peak RSS (MB, from GNU time). The output is
 * read and thrown away, as a pager that keeps up would.
 */
export function run(cli, args, env) {
  return new Promise((done) => {
    const start = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - start) / 1e6;
    const child = spawn('/usr/bin/time', ['-f', '%M', process.execPath, cli, ...args], { env });
    let first;
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      first ??= ms();
      bytes += chunk.length;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => {
      const wall = ms();
      const lines = stderr.trim().split('\n');
      const rss = Number(lines.pop()) / 1024;
      done({
        first: first ?? wall,
        wall,
        rss,
        bytes,
        error: code === 0 ? undefined : lines.join(' ').slice(-300),
      });
    });
  });
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export async function benchDumpStream({ source, sizeMb, runs, cli }) {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-dump-stream-'));
  try {
    const { path, bytes } = writeBigRollout({ source, work, bytes: sizeMb * 1024 * 1024 });
    const env = agentEnv(work);
    const out = join(work, 'out');
    console.log(`\nshow and dump of one Codex rollout of ${(bytes / 1024 / 1024).toFixed(0)} MB (${cli}):`);
    const cases = [
      ['show (events)', ['show', path]],
      ['show --types tool', ['show', path, '--types', 'tool']],
      ['show --types message --json', ['show', path, '--types', 'message', '--json']],
      ['dump json (redacted)', ['dump', path, '--out', `${out}.json`, '--json']],
      ['dump md (redacted)', ['dump', path, '--format', 'md', '--out', `${out}.md`, '--json']],
      ['dump json --no-redact', ['dump', path, '--no-redact', '--out', `${out}.raw.json`, '--json']],
    ];
    for (const [label, args] of cases) {
      const results = [];
      for (let i = 0; i < runs; i++) results.push(await run(cli, args, env));
      const failed = results.find((r) => r.error);
      const written = args.includes('--out')
        ? statSync(args[args.indexOf('--out') + 1]).size
        : results[0].bytes;
      console.log(
        `  ${label.padEnd(30)} ${
          failed
            ? `FAILED: ${failed.error}`
            : `first byte ${(median(results.map((r) => r.first)) / 1000).toFixed(2)} s  total ${(median(results.map((r) => r.wall)) / 1000).toFixed(2)} s  peak ${median(results.map((r) => r.rss)).toFixed(0)} MB  output ${(written / 1024 / 1024).toFixed(1)} MB  (median of ${runs})`
        }`,
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { size: { type: 'string' }, runs: { type: 'string' }, cli: { type: 'string' } },
  });
  await benchDumpStream({
    source: process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus'),
    sizeMb: Number(values.size ?? 196),
    runs: Number(values.runs ?? 3),
    cli: resolve(values.cli ?? join(root, 'bin/cairn.js')),
  });
}
