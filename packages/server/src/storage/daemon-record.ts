// What `$CAIRN_HOME` says about the daemon: `daemon.json` while one runs (its process and address),
// and `last-port`, the port it had last time, which a restart asks for again so that open tabs
// (whose origin includes the port) find it.
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface DaemonRecord {
  readonly pid: number;
  readonly port: number;
  /** The address without the token, as a browser would open it. */
  readonly base: string;
  readonly startedAt: string;
  readonly version: string;
}

export const daemonRecordPath = (home: string): string => join(home, 'daemon.json');
const lastPortPath = (home: string): string => join(home, 'last-port');

/** Writes `text` to `path` whole: readers see the old file or the new one, never a part. */
function writeWhole(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

export function writeDaemonRecord(home: string, record: DaemonRecord): void {
  writeWhole(daemonRecordPath(home), `${JSON.stringify(record, null, 2)}\n`);
  writeWhole(lastPortPath(home), `${record.port}\n`);
}

/** Removes `daemon.json` when it still describes this daemon (another may have started since). */
export function removeDaemonRecord(home: string, record: Pick<DaemonRecord, 'pid' | 'port'>): void {
  const current = readDaemonRecord(home);
  if (current.kind === 'record' && (current.record.pid !== record.pid || current.record.port !== record.port))
    return;
  rmSync(daemonRecordPath(home), { force: true });
}

export type ReadRecord =
  | { kind: 'none' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'record'; record: DaemonRecord };

export function readDaemonRecord(home: string): ReadRecord {
  let text: string;
  try {
    text = readFileSync(daemonRecordPath(home), 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: (cause as Error).message };
  }
  try {
    const value = JSON.parse(text) as Partial<DaemonRecord>;
    if (
      Number.isInteger(value.pid) &&
      Number.isInteger(value.port) &&
      typeof value.base === 'string' &&
      typeof value.startedAt === 'string'
    ) {
      return { kind: 'record', record: value as DaemonRecord };
    }
  } catch {
    // Handled below, as any other record that is not one.
  }
  return { kind: 'unreadable', reason: 'it is not a daemon record' };
}

/** The port the daemon had last time, when one was recorded. */
export function lastPort(home: string): number | undefined {
  try {
    const port = Number(readFileSync(lastPortPath(home), 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists (one of another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'EPERM';
  }
}
