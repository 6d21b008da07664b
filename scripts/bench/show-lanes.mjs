// `cairn show` of one subagent's lane, of a lane bounded by records, and of the items around one
// (`--at`), on a large Claude Code session (with its subagents) and a large Codex rollout: for each
// the time to its first byte of output, its wall time and its peak memory, the median of a few runs.
// Alone: `node scripts/bench/show-lanes.mjs [--claude MB] [--codex MB] [--runs N] [--cli path/to/cairn.js]`.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SOURCE, writeBigClaudeSession, writeBigRollout } from './big-rollout.mjs';
import { agentEnv } from './corpus.mjs';
import { median, run } from './dump-stream.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLAUDE = 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46';

/** The big Claude Code session beside its subagents' files, as the corpus session has them. */
function writeClaude(source, work, bytes) {
  const big = writeBigClaudeSession({ source, work, bytes });
  const to = join(dirname(big.path), CLAUDE.split('/').pop(), 'subagents');
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(join(source, CLAUDE, 'subagents')))
    copyFileSync(join(source, CLAUDE, 'subagents', name), join(to, name));
  return big;
}

export async function benchShowLanes({ source, claudeMb, codexMb, runs, cli }) {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-show-lanes-'));
  try {
    const claude = writeClaude(source, work, claudeMb * 1024 * 1024);
    const codex = writeBigRollout({ source, work, bytes: codexMb * 1024 * 1024 });
    const env = agentEnv(work);
    // Codex ids are line numbers (`L<n>`); a copy of the rollout's body lies `body` lines after the last.
    const body = readFileSync(join(source, SOURCE), 'utf8').split('\n').filter(Boolean).length - 1;
    const copies = Math.floor(codex.bytes / (readFileSync(join(source, SOURCE)).length || 1));
    const codexLine = (line, copy) => `L${line + (copy - 1) * body}`;
    // Claude Code ids are the corpus's, prefixed by their copy's number.
    const claudeCall = 'dadb4bef-2f52-4c04-8aba-46ca0b97d821';
    const claudeCopies = Math.floor(claude.bytes / readFileSync(join(source, `${CLAUDE}.jsonl`)).length);
    const claudeTenth = `${Math.max(1, Math.floor(claudeCopies / 10))}-${claudeCall}`;
    const cases = [
      [
        `Claude ${(claude.bytes / 2 ** 20).toFixed(0)} MB`,
        claude.path,
        [
          [
            'show --agent-id a93ccab --types tool,message',
            ['--agent-id', 'a93ccab', '--types', 'tool,message'],
          ],
          ['show --at (a tenth in)', ['--at', claudeTenth, '--json']],
          ['show --types tool --since-uuid (a tenth in)', ['--types', 'tool', '--since-uuid', claudeTenth]],
        ],
      ],
      [
        `Codex ${(codex.bytes / 2 ** 20).toFixed(0)} MB`,
        codex.path,
        [
          [
            'show --types tool --since-uuid (a tenth in)',
            ['--types', 'tool', '--since-uuid', codexLine(17, Math.max(1, Math.floor(copies / 10)))],
          ],
          [
            'show --types tool --until-uuid (a tenth in)',
            ['--types', 'tool', '--until-uuid', codexLine(17, Math.max(1, Math.floor(copies / 10)))],
          ],
          [
            'show --at (half way)',
            ['--at', codexLine(17, Math.max(1, Math.floor(copies / 2))), '--context', '5'],
          ],
        ],
      ],
    ];
    console.log(`\nshow of a lane, bounded by records, and --at (${cli}):`);
    for (const [session, path, forms] of cases)
      for (const [label, args] of forms) {
        const results = [];
        for (let i = 0; i < runs; i++) results.push(await run(cli, ['show', path, ...args], env));
        const failed = results.find((r) => r.error);
        console.log(
          `  ${session.padEnd(14)} ${label.padEnd(46)} ${
            failed
              ? `FAILED: ${failed.error}`
              : `first byte ${(median(results.map((r) => r.first)) / 1000).toFixed(2)} s  total ${(median(results.map((r) => r.wall)) / 1000).toFixed(2)} s  peak ${median(results.map((r) => r.rss)).toFixed(0)} MB  output ${(results[0].bytes / 1024).toFixed(0)} kB  (median of ${runs})`
          }`,
        );
      }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      claude: { type: 'string' },
      codex: { type: 'string' },
      runs: { type: 'string' },
      cli: { type: 'string' },
    },
  });
  await benchShowLanes({
    source: process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus'),
    claudeMb: Number(values.claude ?? 50),
    codexMb: Number(values.codex ?? 100),
    runs: Number(values.runs ?? 3),
    cli: resolve(values.cli ?? join(root, 'bin/cairn.js')),
  });
}
