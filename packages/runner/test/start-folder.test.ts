// Gemini CLI sweeps the session store of the folder it starts in, deleting sessions it takes for
// debris; so its process starts in a folder of cairn's own, while its sessions keep the project
// folder they are opened in. The other built-in agents start in the session's folder.
import { chmod, mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AgentProcess } from '../src/agent-process.js';
import { agentStartDir, BUILT_IN_BRIDGES, builtInBridge, resolveBridgeCommand } from '../src/bridges.js';
import { rosterLaunchResolver } from '../src/probes.js';

let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cairn-start-folder-'));
  // Every adapter on PATH as a script that says where it was started.
  const bin = join(root, 'bin');
  await mkdir(bin);
  for (const b of BUILT_IN_BRIDGES) {
    await writeFile(join(bin, b.bin), '#!/bin/sh\npwd -P\n');
    await chmod(join(bin, b.bin), 0o755);
  }
  env = { PATH: `${bin}:/usr/bin:/bin` };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

it("gives Gemini CLI a start folder of cairn's own, made ready, and the others none", async () => {
  const cairnHome = join(root, 'cairn');
  for (const b of BUILT_IN_BRIDGES) {
    const resolved = await resolveBridgeCommand(b, { cairnHome, env });
    expect(resolved.installed).toBe(true);
    expect((resolved as { cwd?: string }).cwd, b.key).toBe(
      b.key === 'gemini-cli' ? agentStartDir(cairnHome, 'gemini-cli') : undefined,
    );
  }
  expect((await stat(agentStartDir(cairnHome, 'gemini-cli'))).isDirectory()).toBe(true);
});

it('starts the Gemini CLI process there, while its session opens in the project folder', async () => {
  const cairnHome = join(root, 'cairn-launch');
  const project = join(root, 'project');
  await mkdir(project, { recursive: true });
  const resolve = rosterLaunchResolver({ cairnHome });
  const started = async (key: string) => {
    const launch = await resolve(key, { cwd: project, env });
    if (!launch.ok) throw new Error(launch.error);
    expect(launch.launch.cwd).toBe(project);
    const child = new AgentProcess(launch.launch.command, { cwd: launch.launch.cwd, env });
    let out = '';
    child.child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await child.exited;
    return out.trim();
  };
  expect(await started('gemini-cli')).toBe(await realpath(agentStartDir(cairnHome, 'gemini-cli')));
  expect(await started('claude-code')).toBe(await realpath(project));
  expect(builtInBridge('gemini-cli')?.startsInOwnFolder).toBe(true);
});
