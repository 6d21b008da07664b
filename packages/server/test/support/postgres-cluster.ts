// A throwaway PostgreSQL cluster for a test file: made with initdb in a temporary folder, listening
// only on a Unix socket inside it (no port to collide with another run), stopped and removed after.
// PostgreSQL will not run as root, so when the tests do, the cluster runs as the `postgres` user
// that Debian's package creates (or `nobody`), over a folder handed to that user. Should a test
// process die before stopping it, the run's scratch folder goes with the cluster's lock file, and
// PostgreSQL, which checks that file every minute, shuts itself down.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresCluster {
  /** A connection string for the cluster's `cairn` database, over its socket. */
  readonly url: string;
  /** Makes another empty database and answers its connection string. */
  createDatabase(name: string): string;
  stop(): Promise<void>;
}

/** The folder of initdb and pg_ctl: PG_BIN, else the newest Debian install, else the PATH. */
function binDir(): string | undefined {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** The account the cluster runs as when the tests run as root. */
function unprivilegedAccount(): { uid: number; gid: number; name: string } {
  for (const name of ['postgres', 'nobody']) {
    const found = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (found.status !== 0) continue;
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    return { uid: Number(found.stdout.trim()), gid, name };
  }
  throw new Error('the tests run as root and there is no postgres or nobody account to run PostgreSQL as');
}

/**
 * Starts a cluster. `durable` keeps PostgreSQL's own defaults for writing to disk (a bench's figures
 * are those of a real server); tests leave them off, as the cluster goes with the run anyway.
 */
export function startPostgresCluster({ durable = false }: { durable?: boolean } = {}): PostgresCluster {
  const bin = binDir();
  const tool = (name: string): string => (bin === undefined ? name : join(bin, name));
  const dir = mkdtempSync(join(tmpdir(), 'cairn-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const account = asRoot ? unprivilegedAccount() : undefined;
  if (account) chownSync(dir, account.uid, account.gid);
  const run = (command: string, args: string[]): void => {
    const [file, argv] = account
      ? ['setpriv', [`--reuid=${account.uid}`, `--regid=${account.gid}`, '--clear-groups', command, ...args]]
      : [command, args];
    const done = spawnSync(file, argv, {
      encoding: 'utf8',
      cwd: dir,
      env: { PATH: process.env.PATH, LC_ALL: 'C', HOME: dir },
    });
    if (done.error)
      throw new Error(`cannot run ${command}: ${done.error.message} (is PostgreSQL installed?)`);
    if (done.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed (${done.status}): ${done.stderr || done.stdout}`);
  };
  try {
    run(tool('initdb'), [
      '-D',
      data,
      '-U',
      'cairn',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    // No TCP at all, and (unless durable) nothing written to disk with a flush: the cluster lives as
    // long as the run.
    const flushes = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
    const settings = `-k '${dir}' -c listen_addresses=${flushes}`;
    run(tool('pg_ctl'), [
      'start',
      '-D',
      data,
      '-w',
      '-t',
      '60',
      '-l',
      join(dir, 'server.log'),
      '-o',
      settings,
    ]);
    run(tool('createdb'), ['-h', dir, '-U', 'cairn', 'cairn']);
  } catch (error) {
    const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : '';
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}${log ? `\nserver log:\n${log}` : ''}`);
  }
  const urlOf = (database: string) => `postgresql://cairn@/${database}?host=${encodeURIComponent(dir)}`;
  return {
    url: urlOf('cairn'),
    createDatabase(name) {
      run(tool('createdb'), ['-h', dir, '-U', 'cairn', name]);
      return urlOf(name);
    },
    async stop() {
      try {
        run(tool('pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
