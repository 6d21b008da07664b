// `cairn serve` as a user starts it: a real process on a free port, one line with the address and
// its token, and a `shutdown` that ends the process.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateResponse } from '@cairn/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusEnv, tempDir } from './helpers.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = resolve(root, 'bin/cairn.js');
const built = existsSync(resolve(root, 'packages/cli/dist/main.js'));
const LINE = /^cairn: serving at (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64}))$/m;

describe.skipIf(!corpus || (!built && !process.env.CI))('cairn serve, the process', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGTERM');
  });

  it('prints its address with a fresh token, answers over the socket, and stops on shutdown', async () => {
    child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      env: { ...corpusEnv(), PATH: process.env.PATH ?? '', CAIRN_HOME: tempDir('cairn-state-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const line = await new Promise<RegExpExecArray>((resolveLine, reject) => {
      child!.stdout!.on('data', (chunk) => {
        out += chunk;
        const m = LINE.exec(out);
        if (m) resolveLine(m);
      });
      child!.once('exit', (code) => reject(new Error(`exited with ${code} before serving: ${out}`)));
    });
    const [, , port, token] = line;
    const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));

    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, ['cairn', `cairn.token.${token}`]);
    const replies: Record<string, unknown>[] = [];
    ws.on('message', (d) => replies.push(JSON.parse(d.toString())));
    await new Promise<void>((r, reject) => {
      ws.once('open', () => r());
      ws.once('error', reject);
    });
    const ask = async (message: object) => {
      const before = replies.length;
      ws.send(JSON.stringify(message));
      while (replies.length === before) await new Promise((r) => setTimeout(r, 10));
      return replies[replies.length - 1]!;
    };
    expect(await ask({ request_id: '1', op: 'hello', role: 'user', protocol_version: 1 })).toMatchObject({
      ok: true,
    });
    const list = await ask({ request_id: '2', op: 'session_list' });
    expect(validateResponse('session_list', list).ok).toBe(true);
    expect(list.total).toBeGreaterThan(5);
    expect(await ask({ request_id: '3', op: 'shutdown' })).toEqual({ ok: true, request_id: '3' });
    expect(await exited).toBe(0);
  });
});
