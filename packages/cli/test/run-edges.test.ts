// `cairn run` and `cairn agents` at their edges: Ctrl-C at the permission question cancels the turn
// and exits 130, a session of another agent is named as such instead of failing inside the agent,
// and a short agent name suggests the agent it begins.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { cairn, corpusEnv } from './run.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, '../../../bin/cairn.js');
const WIRE_AGENT = resolve(here, '../../server/test/support/wire-agent.mjs');
const scratches: string[] = [];

afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('cairn run at the permission question', () => {
  it('Ctrl-C cancels the turn and exits 130, with no trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-run-int-'));
    scratches.push(dir);
    const cairnHome = join(dir, 'cairn');
    const project = join(dir, 'project');
    mkdirSync(cairnHome, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(cairnHome, 'config.json'),
      JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
    );
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      CAIRN_HOME: cairnHome,
      WIRE_AGENT_MODE: 'permission',
      WIRE_AGENT_CHUNKS: '1',
      TERM: 'dumb',
    };
    // A terminal of its own (script gives the command a pseudo-terminal), as a person would have.
    const line = [process.execPath, bin, 'run', 'wire', '--cwd', project, 'write the notes']
      .map(quote)
      .join(' ');
    const child = spawn('script', ['-qfec', line, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    for (let i = 0; i < 600 && !out.includes('choose a number:'); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('choose a number:');
    child.stdin.write('\x03');
    const code = await Promise.race([
      exited,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000)),
    ]);
    if (code === 'hung') child.kill('SIGKILL');
    expect(code, out).toBe(130);
    expect(out).not.toMatch(/AbortError|at .*\.js:\d+/);
    child.stdin.end();
  }, 90_000);
});

describe.skipIf(!corpus)('cairn run --session of another agent', () => {
  it('says whose session it is and how to continue it', () => {
    const r = cairn(
      ['run', 'claude-code', '--session', '019a085e-04c1-7f81-a09e-9555f6a1fb40', 'hi'],
      corpusEnv(),
    );
    expect(r.stderr).toContain(
      "'019a085e-04c1-7f81-a09e-9555f6a1fb40' is a session of codex, not of claude-code",
    );
    expect(r.stderr).toContain('cairn run codex --session 019a085e-04c1-7f81-a09e-9555f6a1fb40');
    expect(r.stderr).not.toMatch(/Internal error/i);
    expect(r.status).toBe(1);
  });
});

describe('cairn agents with a name near an agent', () => {
  it('suggests the agent meant', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-agents-'));
    scratches.push(dir);
    const r = cairn(['agents', 'install', 'gemini'], {
      PATH: process.env.PATH,
      HOME: dir,
      CAIRN_HOME: join(dir, 'cairn'),
    });
    expect(r.stderr).toContain("unknown agent 'gemini' (did you mean gemini-cli?)");
    expect(r.status).toBe(2);
  });
});
