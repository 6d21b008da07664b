// `cairn agents verify` with no credentials, against the real adapters: an agent that opens sessions
// signed out (Claude Code, OpenCode) is never reported signed in; verify says it cannot tell.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNoCredentialsEnv, ensureTestAgents } from '../../runner/test/support/agents.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');
let agentsHome: string;
const scratches: string[] = [];

beforeAll(async () => {
  agentsHome = await ensureTestAgents();
}, 600_000);

afterAll(() => {
  for (const dir of scratches) rmSync(dir, { recursive: true, force: true });
});

function cairn(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out });
    });
  });
}

describe.each(['claude-code', 'opencode'] as const)('cairn agents verify %s without credentials', (key) => {
  it('does not say signed in, and says it cannot tell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-verify-'));
    scratches.push(dir);
    const project = join(dir, 'project');
    const cairnHome = join(dir, 'cairn');
    mkdirSync(project, { recursive: true });
    mkdirSync(cairnHome, { recursive: true });
    symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
    const { env } = await agentNoCredentialsEnv(key, dir);
    const ran = await cairn(['agents', 'verify', key, '--cwd', project], { ...env, CAIRN_HOME: cairnHome });
    expect(ran.out).not.toContain('signed in (');
    expect(ran.out).toContain('cannot tell whether it is signed in');
    expect(ran.code).toBe(1);
  }, 180_000);
});
