// `cairn serve --database` in a process of its own, as one of a team server's processes: its own
// home, any free port (no port to race another run for), its state in the given PostgreSQL
// database, killed when the test ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = resolve(fileURLToPath(new URL('../../../../bin/cairn.js', import.meta.url)));

export interface ServerProcess {
  readonly child: ChildProcess;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  /** What it wrote to stderr so far. */
  readonly log: () => string;
  /** Settles when the process has exited, however it ended. */
  readonly exited: Promise<void>;
}

export async function startServerProcess(options: {
  database: string;
  home: string;
  onCleanup: (stop: () => Promise<void>) => void;
}): Promise<ServerProcess> {
  mkdirSync(options.home, { recursive: true });
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--no-demo', '--database', options.database],
    {
      env: { PATH: process.env.PATH, HOME: options.home, CAIRN_HOME: join(options.home, '.cairn') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  options.onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const base = await new Promise<string>((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error(`cairn serve did not start in 60 s: ${err}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const served = /cairn: serving at (http:\/\/[^/\s]+)\//.exec(out);
      if (served) {
        clearTimeout(timer);
        resolveBase(served[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`cairn serve exited (${code ?? signal}) before serving: ${err}`));
    });
  });
  return { child, base, log: () => err, exited };
}
