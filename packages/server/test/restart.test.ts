// A restart keeps what an open tab needs: the same token (kept in $CAIRN_HOME, readable by its owner
// alone) and, when it is free, the same port; while it runs, daemon.json says where it is.
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { persistentToken } from '../src/gate/security.js';
import { readDaemonRecord } from '../src/storage/daemon-record.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const mode = (path: string): number => statSync(path).mode & 0o777;

describe('a daemon restarted on the same $CAIRN_HOME', () => {
  it('keeps its token in a file only its owner can read, and uses it again', async () => {
    const state = tempDir('cairn-state-');
    const env = homeEnv(tempDir());
    const first = await serve(env, { cairnHome: state });
    await first.close();
    const file = join(state, 'token');
    expect(readFileSync(file, 'utf8').trim()).toBe(first.token);
    expect(first.token).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(file)).toBe(0o600);
    const second = await serve(env, { cairnHome: state });
    expect(second.token).toBe(first.token);
    const client = await Client.open(second);
    expect((await client.request('ping')).ok).toBe(true);
    await client.close();
    await second.close();
  });

  it('makes a new token when the kept one could have been read by others, or is not a token', () => {
    const state = tempDir('cairn-state-');
    const lines: string[] = [];
    const first = persistentToken(state, {}, (l) => lines.push(l));
    chmodSync(join(state, 'token'), 0o644);
    const second = persistentToken(state, {}, (l) => lines.push(l));
    expect(second).not.toBe(first);
    expect(mode(join(state, 'token'))).toBe(0o600);
    expect(lines.some((l) => l.includes('readable by others'))).toBe(true);
    writeFileSync(join(state, 'token'), 'short\n', { mode: 0o600 });
    const third = persistentToken(state, {}, (l) => lines.push(l));
    expect(third).toMatch(/^[0-9a-f]{64}$/);
    expect(persistentToken(state, {})).toBe(third);
    expect(persistentToken(state, { CAIRN_TOKEN: 'fixed' })).toBe('fixed');
  });

  it('asks for the port it had last time, and takes another when that one is taken', async () => {
    const state = tempDir('cairn-state-');
    const env = homeEnv(tempDir());
    const first = await serve(env, { cairnHome: state });
    const port = first.port;
    await first.close();
    const again = await serve(env, { cairnHome: state });
    expect(again.port).toBe(port);
    await again.close();
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', () => r()));
    const lines: string[] = [];
    const moved = await serve(env, { cairnHome: state, log: (l) => lines.push(l) });
    expect(moved.port).not.toBe(port);
    expect(lines.some((l) => l.includes(`port ${port} of the last run is taken`))).toBe(true);
    await moved.close();
    await new Promise<void>((r) => squatter.close(() => r()));
    // An explicit port 0 is any free port, whatever the last one was.
    const any = await serve(env, { cairnHome: state, port: 0 });
    expect(any.port).not.toBe(moved.port);
    await any.close();
  });

  it('records its process and address in daemon.json while it runs, and removes the record at stop', async () => {
    const state = tempDir('cairn-state-');
    const server = await serve(homeEnv(tempDir()), { cairnHome: state });
    const read = readDaemonRecord(state);
    expect(read.kind).toBe('record');
    if (read.kind !== 'record') return;
    expect(read.record).toMatchObject({
      pid: process.pid,
      port: server.port,
      base: `http://127.0.0.1:${server.port}/`,
    });
    expect(JSON.stringify(read.record)).not.toContain(server.token);
    expect(mode(join(state, 'daemon.json'))).toBe(0o600);
    await server.close();
    expect(existsSync(join(state, 'daemon.json'))).toBe(false);
  });
});
