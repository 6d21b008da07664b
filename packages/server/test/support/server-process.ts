// `cairn serve` in a process of its own, as a person or one of a team server's processes runs it:
// its own home, any free port (no port to race another run for), stopped when the test ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = resolve(fileURLToPath(new URL('../../../../bin/cairn.js', import.meta.url)));

export interface ServeChild {
  readonly child: ChildProcess;
  readonly cairnHome: string;
  /** What it wrote to stdout and to stderr so far. */
  readonly out: () => string;
  readonly err: () => string;
  /** Its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** `http://127.0.0.1:<port>` once it serves; rejects, with its stderr, if it exits or takes 60 s. */
  readonly serving: Promise<string>;
}

/** Starts `cairn serve --port 0 --no-demo ARGS` with `home` as its HOME; `stop` ends it at cleanup. */
export function spawnServe(options: {
  home: string;
  args?: readonly string[];
  env?: NodeJS.ProcessEnv;
  onCleanup: (stop: () => Promise<void>) => void;
  /** How it is ended at cleanup: SIGTERM lets it shut down as a person's Ctrl-C would. */
  stop?: 'SIGTERM' | 'SIGKILL';
}): ServeChild {
  mkdirSync(options.home, { recursive: true });
  const cairnHome = join(options.home, '.cairn');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-demo', ...(options.args ?? [])], {
    env: { PATH: process.env.PATH, HOME: options.home, CAIRN_HOME: cairnHome, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  options.onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(options.stop ?? 'SIGKILL');
    await exited;
  });
  const serving = new Promise<string>((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error(`cairn serve did not start in 60 s: ${err}`)), 60_000);
    const look = () => {
      const served = /cairn: serving at (http:\/\/[^/\s]+)\//.exec(out);
      if (!served) return;
      clearTimeout(timer);
      resolveBase(served[1]!);
    };
    child.stdout!.on('data', look);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`cairn serve exited (${code ?? signal}) before serving: ${err}`));
    });
  });
  // A test that expects it to refuse its arguments never asks whether it serves.
  serving.catch(() => {});
  return { child, cairnHome, out: () => out, err: () => err, exited, serving };
}

export interface ServerProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** What it wrote to stderr so far. */
  readonly log: () => string;
  /** Settles when the process has exited, however it ended. */
  readonly exited: Promise<unknown>;
}

/** One process of a team's server, its state in the given PostgreSQL database, once it serves. */
export async function startServerProcess(options: {
  database: string;
  home: string;
  onCleanup: (stop: () => Promise<void>) => void;
}): Promise<ServerProcess> {
  const serve = spawnServe({
    home: options.home,
    args: ['--database', options.database],
    onCleanup: options.onCleanup,
  });
  const base = await serve.serving;
  return { child: serve.child, base, log: serve.err, exited: serve.exited };
}
