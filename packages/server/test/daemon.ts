// The daemon as a child process built from the sources, for tests that need a process of its own: one
// under a low limit of open files, say. The bundle sits under the repository's node_modules so that
// the packages it leaves outside resolve as they do for the built CLI.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Bundles `daemon-entry.ts`; answers the path of the runnable file. */
export async function buildDaemon(): Promise<string> {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const outfile = join(mkdtempSync(join(cache, 'cairn-daemon-')), 'daemon.mjs');
  await build({
    entryPoints: [join(root, 'packages/server/test/daemon-entry.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'error',
    external: ['better-sqlite3', 'ws'],
  });
  return outfile;
}

/** Removes what `buildDaemon` made, if it made anything. */
export function removeDaemon(file: string | undefined): void {
  if (file !== undefined) rmSync(dirname(file), { recursive: true, force: true });
}

export interface Daemon {
  readonly child: ChildProcess;
  readonly port: number;
  readonly token: string;
  /** What it wrote to stderr so far. */
  readonly log: () => string;
  stop(): Promise<void>;
}

/** Starts the daemon; `prefix` goes before node on the command line (`prlimit --nofile=…`). */
export async function startDaemon(
  file: string,
  env: Record<string, string>,
  prefix: readonly string[] = [],
): Promise<Daemon> {
  const [command, ...args] = [...prefix, process.execPath, file];
  const child = spawn(command!, args, {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const ready = await new Promise<RegExpExecArray>((resolveReady, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const m = /^ready (\d+) (\S+)$/m.exec(out);
      if (m) resolveReady(m);
    });
    child.once('exit', (code) => reject(new Error(`daemon exited with ${code}: ${err}`)));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    child,
    port: Number(ready[1]),
    token: ready[2]!,
    log: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
