// Syncing a machine's sessions to a server (`cairn workstation --sync`): a workstation over a corpus
// of N sessions and a fresh state syncs to a `cairn serve` that has none; then it is restarted on the
// same state and syncs again; then the server lists them.
//   1. first sync: time from the workstation's start to "synced" (its own cold index included), the
//      sessions, batches and bytes sent, and its peak memory
//   2. restart: time to "synced" again, and what was sent (nothing, when the server holds it all)
//   3. `session_list` of the first 200 on the server holding them: median and p95 over --list-runs
// `node scripts/bench/sync.mjs [work] [--sessions N] [--max-session-kb KB] [--list-runs N]`; the
// corpus is built in [work] (the index bench's form) when that folder does not exist yet, and kept.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from './client.mjs';
import { agentEnv, buildSessionCorpus } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { bytesText, mb, median, percentile } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    sessions: { type: 'string', default: '2000' },
    'max-session-kb': { type: 'string', default: '512' },
    'list-runs': { type: 'string', default: '20' },
  },
});
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
const TIMEOUT_MS = 60 * 60 * 1000;

const own = mkdtempSync(join(tmpdir(), 'cairn-bench-sync-'));
const cleanup = () => {
  killAll();
  rmSync(own, { recursive: true, force: true });
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

/** `cairn workstation --sync` as a child: resolves when it says it is synced, with its peak RSS. */
function syncOnce(env) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, [cli, 'workstation', '--server', env.SERVER, '--sync'], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = [];
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no sync within ${TIMEOUT_MS / 1000} s; last lines:\n${lines.slice(-5).join('\n')}`));
    }, TIMEOUT_MS);
    createInterface({ input: child.stderr }).on('line', (text) => {
      lines.push(text);
      const m = /synced \((\d+) sent, (\d+) search documents, in (\d+) batches, (\d+) bytes/.exec(text);
      if (!m) return;
      const seconds = (performance.now() - startedAt) / 1000;
      let peakKb = 0;
      try {
        peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      } catch {}
      clearTimeout(timer);
      child.once('exit', () =>
        resolvePromise({
          seconds,
          sent: +m[1],
          docs: +m[2],
          batches: +m[3],
          bytes: +m[4],
          peakMb: peakKb / 1024,
        }),
      );
      child.kill('SIGTERM');
    });
    child.once('error', reject);
    // Gone before it said it was synced: say why, from what it wrote last.
    child.once('exit', (code, signal) => {
      if (lines.some((l) => / synced \(/.test(l))) return;
      clearTimeout(timer);
      reject(
        new Error(
          `the workstation ended (${signal ?? code}) before it was synced:\n${lines.slice(-10).join('\n')}`,
        ),
      );
    });
  });
}

try {
  const work = positionals[0] ?? join(own, 'corpus');
  if (!existsSync(work)) {
    if (!existsSync(source)) throw new Error(`no corpus at ${source} (set CAIRN_CORPUS)`);
    const built = buildSessionCorpus({
      source,
      work,
      sessions: Number(values.sessions),
      maxSessionBytes: Number(values['max-session-kb']) * 1024,
    });
    console.log(
      `bench: ${built.sessions} sessions of ${built.kinds} kinds, ${mb(built.bytes).toFixed(0)} MB`,
    );
  }
  const serverHome = join(own, 'server');
  const serverEnv = { ...agentEnv(join(own, 'nothing')), CAIRN_HOME: serverHome };
  const daemon = new Daemon({ cli, env: serverEnv });
  const { port, token } = await daemon.url;
  const ticket = execFileSync(process.execPath, [cli, 'workstation', 'ticket', 'laptop'], {
    env: serverEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  const machine = {
    ...agentEnv(work),
    CAIRN_HOME: join(own, 'laptop'),
    CAIRN_TICKET: ticket,
    SERVER: `http://127.0.0.1:${port}`,
  };
  const first = await syncOnce(machine);
  const again = await syncOnce(machine);
  const client = await Client.connect({ port, token });
  const times = [];
  let total = 0;
  for (let i = 0; i < Number(values['list-runs']); i++) {
    const asked = performance.now();
    const reply = await client.request('session_list', { limit: 200 });
    times.push(performance.now() - asked);
    if (!reply.ok) throw new Error(`session_list refused: ${JSON.stringify(reply.error)}`);
    total = reply.total;
  }
  client.close();
  await daemon.stop();
  const line = (name, r) =>
    `  ${name.padEnd(28)} ${r.seconds.toFixed(1).padStart(6)} s  ${String(r.sent).padStart(6)} heads, ${String(r.docs).padStart(8)} documents in ${String(r.batches).padStart(5)} batches, ${bytesText(r.bytes).padStart(9)}  peak ${r.peakMb.toFixed(0)} MB`;
  console.log(`sync of ${total} sessions to a server that had none`);
  console.log(line('first sync (index included)', first));
  console.log(line('restarted, same state', again));
  console.log(
    `  session_list (200 of ${total}) on the server: median ${median(times).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`,
  );
} finally {
  cleanup();
}
