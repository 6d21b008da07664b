// API keys kept for agents: in one owner-only file of cairn's, under the variable each agent reads,
// and added to the agent's environment whenever cairn starts it.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiKeyVariable, isApiKeyMethod, storeAgentKey, storedAgentEnv } from '../src/agent-keys.js';
import { rosterLaunchResolver } from '../src/probes.js';
import { rosterSnapshot } from '../src/roster.js';

const home = mkdtempSync(join(tmpdir(), 'cairn-keys-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('agent keys', () => {
  it('keeps a key owner-only under the variable the agent reads, and the launch carries it', async () => {
    expect(storeAgentKey(home, 'gemini-cli', 'gemini-api-key', '  key-one  ')).toEqual({
      ok: true,
      variable: 'GEMINI_API_KEY',
    });
    expect(storeAgentKey(home, 'codex', 'api-key', 'key-two')).toEqual({
      ok: true,
      variable: 'CODEX_API_KEY',
    });
    // A second key for the same agent replaces the first.
    storeAgentKey(home, 'gemini-cli', 'gemini-api-key', 'key-three');
    const file = join(home, 'agent-keys.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      'gemini-cli': { env: { GEMINI_API_KEY: 'key-three' }, method: 'gemini-api-key' },
      codex: { env: { CODEX_API_KEY: 'key-two' }, method: 'api-key' },
    });
    expect(storedAgentEnv(home, 'gemini-cli')).toEqual({ GEMINI_API_KEY: 'key-three' });
    expect(storedAgentEnv(home, 'opencode')).toEqual({});

    const resolve = rosterLaunchResolver({ cairnHome: home });
    const launch = await resolve('gemini-cli', {
      cwd: home,
      env: { PATH: '/usr/bin', GEMINI_API_KEY: 'from-the-shell' },
      command: process.execPath,
    });
    expect(launch.ok && launch.launch.env.GEMINI_API_KEY).toBe('key-three');
    // The method the key answers is named to the agent when it starts.
    expect(launch.ok && launch.launch.authenticate).toEqual({ methodId: 'gemini-api-key' });
  });

  it('refuses a method whose variable it does not know, and a key with spaces', () => {
    const unknown = storeAgentKey(home, 'opencode', 'opencode-login', 'k');
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error).toMatch(/does not know which variable opencode reads/);
    const spaced = storeAgentKey(home, 'gemini-cli', 'gemini-api-key', 'two words');
    expect(spaced.ok).toBe(false);
    expect(apiKeyVariable('gemini-cli', 'oauth-personal')).toBeUndefined();
    expect(isApiKeyMethod({ id: 'gemini-api-key', name: 'Gemini API key' })).toBe(true);
    expect(isApiKeyMethod({ id: 'oauth-personal', name: 'Log in with Google' })).toBe(false);
    expect(isApiKeyMethod({ id: 'x', name: 'X', type: 'env_var' })).toBe(true);
  });

  it('reads no keys from a file it cannot parse', () => {
    const other = mkdtempSync(join(tmpdir(), 'cairn-keys-bad-'));
    writeFileSync(join(other, 'agent-keys.json'), '{"gemini-cli": ');
    expect(storedAgentEnv(other, 'gemini-cli')).toEqual({});
    rmSync(other, { recursive: true, force: true });
  });
});

describe('the roster snapshot', () => {
  it('keeps the declared agents of the last good config.json while the file is broken', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-roster-'));
    const env = { PATH: '' };
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ agents: { mine: { name: 'Mine', command: process.execPath } } }),
    );
    const good = await rosterSnapshot(dir, env);
    expect(good.bridges.map((b) => b.key)).toContain('mine');
    expect(good.problems).toEqual([]);
    writeFileSync(join(dir, 'config.json'), '{"agents": ');
    const broken = await rosterSnapshot(dir, env, good);
    expect(broken.bridges.map((b) => b.key)).toContain('mine');
    expect(broken.problems[0]).toMatch(/^config\.json is not JSON/);
    // Without a good one before, only the built-ins.
    const first = await rosterSnapshot(dir, env);
    expect(first.bridges.map((b) => b.key)).not.toContain('mine');
    rmSync(dir, { recursive: true, force: true });
  });
});
