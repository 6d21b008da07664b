// cairn url: the running daemon's address with its token, from $CAIRN_HOME; a plain refusal when
// none runs or when the record it left behind is stale.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@cairn/server';
import { describe, expect, it } from 'vitest';
import { cairn, corpusEnv } from './run.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** The CLI without blocking this process, which may hold the daemon that must answer it. */
const cairnAsync = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, [bin, ...args], { env }, (err, stdout, stderr) =>
      done({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

describe('cairn url', () => {
  it('says that no daemon is running when none has a record', () => {
    const env = corpusEnv();
    const r = cairn(['url'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no daemon is running');
    expect(r.stdout).toBe('');
  });

  it('calls a record whose process is gone stale', () => {
    const env = corpusEnv();
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const pid = Number(gone.stdout);
    const home = env.CAIRN_HOME!;
    mkdirSync(home, { recursive: true });
    writeFileSync(
      join(home, 'daemon.json'),
      JSON.stringify({
        pid,
        port: 9,
        base: 'http://127.0.0.1:9/',
        startedAt: '2026-01-01T00:00:00Z',
        version: '0',
      }),
    );
    const r = cairn(['url'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('stale');
    expect(r.stderr).toContain(`process ${pid} is gone`);
  });

  it('prints the address of the running daemon with its token, and its record with --json', async () => {
    const env = corpusEnv();
    const server = await startServer({
      env: env as Record<string, string>,
      homeDir: env.HOME!,
      cairnHome: env.CAIRN_HOME!,
      demo: false,
      port: 0,
    });
    try {
      const plain = await cairnAsync(['url'], env);
      expect(plain.stderr).toBe('');
      expect(plain.status).toBe(0);
      expect(plain.stdout).toBe(`${server.url}\n`);
      const json = JSON.parse((await cairnAsync(['url', '--json'], env)).stdout) as Record<string, unknown>;
      expect(json).toMatchObject({ url: server.url, port: server.port, pid: process.pid });
    } finally {
      await server.close();
    }
    const after = cairn(['url'], env);
    expect(after.status).toBe(1);
    expect(after.stderr).toContain('no daemon is running');
  });
});
