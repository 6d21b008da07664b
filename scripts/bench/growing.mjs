// A Codex rollout that grows while no reader follows it, as an agent at work writes it with only
// the daemon watching: the daemon's CPU time (its workers included) while a line is appended every
// 250 ms, once the index is ready and the first appends were read. A session small enough to keep
// translated is read on from where it stopped; a larger one is read whole again, with pauses between.
// Alone: `node scripts/bench/growing.mjs [--sizes 100,300] [--seconds 60]`.
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SOURCE, withOwnCallIds, writeBigRollout } from './big-rollout.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon } from './daemon.mjs';
import { untilReady } from './ready.mjs';
import { sleep } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const APPEND_EVERY_MS = 250;
const WARM_UP_MS = 15_000;

/** CPU seconds a process has used, every thread of it. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure({ source, sizeMb, seconds }) {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-growing-'));
  const env = agentEnv(work);
  const { path } = writeBigRollout({ source, work, bytes: sizeMb * 1024 * 1024 });
  const more = readFileSync(join(source, SOURCE), 'utf8').split('\n').filter(Boolean).slice(1);
  const daemon = new Daemon({ cli: join(root, 'bin/cairn.js'), env });
  try {
    await untilReady(daemon, 600_000);
    const pid = daemon.child.pid;
    let n = 0;
    const grow = async (ms) => {
      for (const until = performance.now() + ms; performance.now() < until; n++) {
        // Call ids of their own, as the rollout's copies have.
        appendFileSync(path, `${withOwnCallIds(more[n % more.length], `g${n}`)}\n`);
        await sleep(APPEND_EVERY_MS);
      }
    };
    // The first appends make the session's translation (or read it whole once more): left out.
    await grow(WARM_UP_MS);
    const before = cpuSeconds(pid);
    const started = performance.now();
    await grow(seconds * 1000);
    const wall = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - before;
    console.log(
      `  ${`${sizeMb} MB rollout, a line every ${APPEND_EVERY_MS} ms`.padEnd(40)} ${cpu.toFixed(1).padStart(5)} s CPU in ${wall.toFixed(0)} s  (${((100 * cpu) / wall).toFixed(0)}% of a core)`,
    );
  } finally {
    await daemon.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

export async function benchGrowing({ source, sizes = [100, 300], seconds = 60 }) {
  console.log('\ngrowing session nobody follows (daemon CPU while it grows):');
  for (const sizeMb of sizes) await measure({ source, sizeMb, seconds });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { sizes: { type: 'string', default: '100,300' }, seconds: { type: 'string', default: '60' } },
  });
  const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
  await benchGrowing({ source, sizes: values.sizes.split(',').map(Number), seconds: Number(values.seconds) });
}
