import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adapterBinPath,
  BUILT_IN_BRIDGES,
  builtInBridge,
  cliInstalled,
  declaredAgentsOfConfig,
  findBridge,
  readDeclaredAgents,
  readRoster,
  resolveBridgeCommand,
} from '../src/bridges.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-bridges-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function executable(path: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, '#!/bin/sh\nexit 0\n');
  await chmod(path, 0o755);
  return path;
}

describe('the built-in roster', () => {
  it('pins the adapters and knows how each starts', () => {
    expect(
      BUILT_IN_BRIDGES.map((b) => [b.key, b.npmPackage, b.version, b.bin, b.args.join(' '), b.cli]),
    ).toEqual([
      ['claude-code', '@agentclientprotocol/claude-agent-acp', '0.101.0', 'claude-agent-acp', '', 'claude'],
      ['codex', '@agentclientprotocol/codex-acp', '2.6.0', 'codex-acp', '', 'codex'],
      ['gemini-cli', '@google/gemini-cli', '0.61.0', 'gemini', '--acp', 'gemini'],
      ['opencode', 'opencode-ai', '1.18.33', 'opencode', 'acp', 'opencode'],
      ['qwen-code', '@qwen-code/qwen-code', '0.24.4', 'qwen', '--acp', 'qwen'],
      ['kilo', '@kilocode/cli', '7.7.7', 'kilo', 'acp', 'kilo'],
      ['pi', 'pi-acp', '0.0.24', 'pi-acp', '', 'pi'],
      ['copilot-cli', '@github/copilot', '1.0.102', 'copilot', '--acp', 'copilot'],
    ]);
    expect(
      BUILT_IN_BRIDGES.flatMap((b) => (b.companions ?? []).map((c) => [b.key, c.npmPackage, c.version])),
    ).toEqual([['pi', '@mariozechner/pi-coding-agent', '0.73.1']]);
    expect(BUILT_IN_BRIDGES.filter((b) => b.supportsSteering).map((b) => b.key)).toEqual([
      'claude-code',
      'codex',
    ]);
    expect(BUILT_IN_BRIDGES.every((b) => b.supportsImageInput)).toBe(true);
  });
});

describe('resolveBridgeCommand', () => {
  it("prefers cairn's own install, then PATH, else says how to install", async () => {
    const home = join(root, 'resolve');
    const bin = join(root, 'resolve-bin');
    const codex = builtInBridge('codex')!;
    const env = { PATH: bin };

    expect(await resolveBridgeCommand(codex, { cairnHome: home, env })).toEqual({
      installed: false,
      message: 'Codex is not installed: cairn agents install codex',
    });
    expect(await cliInstalled(codex, env)).toBe(false);

    const onPath = await executable(join(bin, 'codex-acp'));
    await executable(join(bin, 'codex'));
    expect(await resolveBridgeCommand(codex, { cairnHome: home, env })).toEqual({
      installed: true,
      command: onPath,
      args: [],
      env: {},
      source: 'path',
    });
    expect(await cliInstalled(codex, env)).toBe(true);

    const own = await executable(adapterBinPath(home, codex));
    expect(await resolveBridgeCommand(codex, { cairnHome: home, env })).toMatchObject({
      command: own,
      source: 'cairn',
    });

    const gemini = builtInBridge('gemini-cli')!;
    await executable(join(bin, 'gemini'));
    expect(await resolveBridgeCommand(gemini, { cairnHome: home, env })).toMatchObject({
      installed: true,
      args: ['--acp'],
      source: 'path',
    });
  });

  it('finds a declared agent on PATH, by absolute path, or relative to $CAIRN_HOME', async () => {
    const home = join(root, 'declared');
    const bin = join(root, 'declared-bin');
    const onPath = await executable(join(bin, 'my-agent'));
    const local = await executable(join(home, 'tools', 'local-agent'));
    const { bridges, problems } = declaredAgentsOfConfig({
      agents: {
        mine: { command: 'my-agent', args: ['--acp'], env: { MY_FLAG: '1' } },
        local: { name: 'Local', command: 'tools/local-agent' },
        absolute: { command: local },
        gone: { command: 'not-anywhere' },
      },
    });
    expect(problems).toEqual([]);
    const [mine, localAgent, absolute, gone] = bridges;
    const env = { PATH: bin };
    expect(await resolveBridgeCommand(mine!, { cairnHome: home, env })).toEqual({
      installed: true,
      command: onPath,
      args: ['--acp'],
      env: { MY_FLAG: '1' },
      source: 'declared',
    });
    expect(await resolveBridgeCommand(localAgent!, { cairnHome: home, env })).toMatchObject({
      command: local,
    });
    expect(await resolveBridgeCommand(absolute!, { cairnHome: home, env })).toMatchObject({ command: local });
    expect(await resolveBridgeCommand(gone!, { cairnHome: home, env })).toEqual({
      installed: false,
      message: 'gone: not-anywhere was not found',
    });
  });
});

describe('declared agents in config.json', () => {
  it('keeps the good entries and names each bad one', () => {
    const { bridges, problems } = declaredAgentsOfConfig({
      presets: {},
      agents: {
        good: { name: 'Good', command: 'good-acp', args: ['acp'], env: { A: 'b' } },
        minimal: { command: 'minimal' },
        codex: { command: 'my-codex' },
        'bad key': { command: 'x' },
        nocommand: { name: 'No command' },
        emptycommand: { command: '  ' },
        badargs: { command: 'x', args: 'acp' },
        badenv: { command: 'x', env: { A: 1 } },
        badname: { command: 'x', name: 3 },
        notobject: 'x',
      },
    });
    expect(bridges).toEqual([
      { kind: 'declared', key: 'good', name: 'Good', command: 'good-acp', args: ['acp'], env: { A: 'b' } },
      { kind: 'declared', key: 'minimal', name: 'minimal', command: 'minimal', args: [], env: {} },
    ]);
    expect(problems.map((p) => p.key)).toEqual([
      'codex',
      'bad key',
      'nocommand',
      'emptycommand',
      'badargs',
      'badenv',
      'badname',
      'notobject',
    ]);
    expect(problems[0]!.message).toBe(
      'agents.codex: "codex" is a built-in agent; declare yours under another key',
    );
    expect(problems[2]!.message).toBe('agents.nocommand: "command" must be a non-empty string');
    expect(problems[4]!.message).toBe('agents.badargs: "args" must be an array of strings');
  });

  it('treats no config, no agents and odd shapes calmly', () => {
    expect(declaredAgentsOfConfig(undefined)).toEqual({ bridges: [], problems: [] });
    expect(declaredAgentsOfConfig({})).toEqual({ bridges: [], problems: [] });
    expect(declaredAgentsOfConfig([]).problems).toEqual([
      { key: null, message: 'the config is not a JSON object' },
    ]);
    expect(declaredAgentsOfConfig({ agents: ['x'] }).problems[0]!.message).toMatch(
      /"agents" must be an object/,
    );
  });

  it('reads the file, and reports an unreadable or non-JSON one instead of throwing', async () => {
    const none = join(root, 'no-config');
    expect(await readDeclaredAgents(none)).toEqual({ bridges: [], problems: [] });
    expect((await readRoster(none)).bridges).toHaveLength(BUILT_IN_BRIDGES.length);

    const broken = join(root, 'broken');
    await mkdir(broken, { recursive: true });
    await writeFile(join(broken, 'config.json'), '{"agents": {');
    const read = await readDeclaredAgents(broken);
    expect(read.bridges).toEqual([]);
    expect(read.problems[0]!.message).toMatch(/^config\.json is not JSON: /);

    const good = join(root, 'good');
    await mkdir(good, { recursive: true });
    await writeFile(
      join(good, 'config.json'),
      JSON.stringify({ agents: { mine: { command: 'mine-acp' }, bad: { command: 1 } } }),
    );
    const roster = await readRoster(good);
    expect(roster.bridges.map((b) => b.key)).toEqual([
      'claude-code',
      'codex',
      'gemini-cli',
      'opencode',
      'qwen-code',
      'kilo',
      'pi',
      'copilot-cli',
      'mine',
    ]);
    expect(roster.problems).toEqual([
      { key: 'bad', message: 'config.json: agents.bad: "command" must be a non-empty string' },
    ]);
    expect(await findBridge(good, 'mine')).toMatchObject({ kind: 'declared', command: 'mine-acp' });
    expect(await findBridge(good, 'opencode')).toMatchObject({ kind: 'builtin' });
    expect(await findBridge(good, 'bad')).toBeUndefined();
  });
});
