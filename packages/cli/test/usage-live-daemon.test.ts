// `cairn usage blocks --live` with a daemon running: the window comes from the daemon's index, not
// from files the CLI reads (its own agent homes are empty here), and it is drawn again in place on a
// terminal as a session grows. Without a terminal it is printed once, plainly.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@cairn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeExchange } from '../../server/test/support/claude-lines.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');
const sessionId = '0c0ffee0-0000-4000-8000-00000000b4b4';

/** A prompt and its reply, whose request took `input` and wrote `output` tokens, `minutesAgo`. */
const exchange = (i: number, minutesAgo: number, input: number, output: number): string =>
  claudeExchange({
    sessionId,
    cwd: '/home/dev/live',
    i,
    at: Date.now() - minutesAgo * 60_000,
    usage: { input_tokens: input, output_tokens: output },
  });

/** The window's tokens in the last drawing of `text`. */
function lastTokens(text: string): number | undefined {
  const all = [...text.matchAll(/^tokens\s+([\d,]+)/gm)];
  const last = all.at(-1)?.[1];
  return last === undefined ? undefined : Number(last.replaceAll(',', ''));
}

describe.skipIf(process.platform === 'win32')('cairn usage blocks --live through the daemon', () => {
  const root = mkdtempSync(join(tmpdir(), 'cairn-usage-live-'));
  const agentHome = join(root, 'home');
  const cairnHome = join(root, 'cairn');
  const file = join(agentHome, '.claude', 'projects', '-home-dev-live', `${sessionId}.jsonl`);
  // The CLI's own home holds no session: whatever it draws, the daemon counted.
  const cliEnv = { PATH: process.env.PATH, HOME: join(root, 'empty'), CAIRN_HOME: cairnHome, TERM: 'xterm' };
  let server: Awaited<ReturnType<typeof startServer>>;
  let live: ChildProcess | undefined;

  beforeAll(async () => {
    mkdirSync(dirname(file), { recursive: true });
    mkdirSync(cliEnv.HOME, { recursive: true });
    writeFileSync(file, exchange(0, 40, 1_000, 200) + exchange(1, 30, 2_000, 300));
    server = await startServer({
      env: { PATH: process.env.PATH!, HOME: agentHome },
      homeDir: agentHome,
      cairnHome,
      demo: false,
      port: 0,
      waitForIndex: true,
      rescanMs: 500,
    });
  }, 120_000);
  afterAll(async () => {
    if (live?.pid !== undefined && live.exitCode === null) live.kill('SIGKILL');
    await server?.close();
  });

  it('prints the window once when the output is not a terminal', async () => {
    const out = await new Promise<{ code: number; stdout: string }>((done) =>
      execFile(process.execPath, [bin, 'usage', 'blocks', '--live'], { env: cliEnv }, (err, stdout) =>
        done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }),
      ),
    );
    expect(out.code).toBe(0);
    expect(lastTokens(out.stdout)).toBe(3_500);
    expect(out.stdout).toContain(sessionId);
    // Plain text: no cursor moves or clearing.
    expect(out.stdout).not.toContain('\x1b[');
  }, 60_000);

  it('draws the window again in place on a terminal as a session grows', async () => {
    // A terminal of its own for the command.
    const command = [process.execPath, bin, 'usage', 'blocks', '--live'].map((a) => `'${a}'`).join(' ');
    live = spawn('script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
      env: cliEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let text = '';
    live.stdout!.on('data', (b: Buffer) => {
      text += b.toString();
    });
    const until = async (what: () => boolean, label: string) => {
      for (let tries = 0; tries < 300 && !what(); tries++) await new Promise((r) => setTimeout(r, 100));
      expect(what(), `${label}\n${text.slice(-2_000)}`).toBe(true);
    };
    await until(() => lastTokens(text) === 3_500, 'the first drawing');
    expect(text).toContain('\x1b[H\x1b[2J');
    appendFileSync(file, exchange(2, 1, 4_000, 500));
    await until(() => lastTokens(text) === 8_000, 'a drawing with the new request');
    live.kill('SIGTERM');
  }, 60_000);
});
