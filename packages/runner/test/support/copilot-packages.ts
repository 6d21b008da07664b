// Copilot CLI unpacks its runtime (about 235 MB) into $XDG_CACHE_HOME/copilot/pkg the first time it
// starts with that cache, and every test gives it a fresh home: each test paid for the unpacking
// again, in time and in disk writes. It is unpacked once per machine beside the installed agents,
// and each test's cache links to it. Copilot CLI is made for one such folder shared by processes
// running at once (it marks a finished unpack with `.extraction-complete` and each user of it with
// files of its own), so the link changes nothing it does after its start.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { builtInBridge, resolveBridgeCommand } from '../../src/bridges.js';

const DONE = '.extraction-complete';

let shared: Promise<string | undefined> | undefined;

/**
 * Links `cache`'s Copilot CLI packages to the ones unpacked once under `agentsHome`, unpacking
 * them first if need be. Leaves `cache` as it was when Copilot CLI is not installed there.
 */
export async function linkCopilotPackages(cache: string, agentsHome: string): Promise<void> {
  shared ??= sharedPackages(agentsHome).catch(() => undefined);
  const packages = await shared;
  if (packages === undefined) return;
  await mkdir(join(cache, 'copilot'), { recursive: true });
  await symlink(packages, join(cache, 'copilot', 'pkg'));
}

/** The shared `pkg` folder, holding a finished unpack of the installed version; undefined if none can be made. */
async function sharedPackages(agentsHome: string): Promise<string | undefined> {
  const bridge = builtInBridge('copilot-cli')!;
  const packages = join(agentsHome, 'copilot-cache', 'pkg');
  await mkdir(packages, { recursive: true });
  const finished = async () =>
    (await readdir(packages)).some((platform) => existsSync(join(packages, platform, bridge.version, DONE)));
  if (await finished()) return packages;
  const resolved = await resolveBridgeCommand(bridge, { cairnHome: agentsHome, env: { PATH: '' } });
  if (!resolved.installed) return undefined;
  // Unpacked in a folder of its own, by asking the installed CLI its version; then each version
  // folder is moved into place whole, so no process ever sees half an unpack. When two test
  // files unpack at once, the first move wins and the other's copy is dropped.
  const scratch = await mkdtemp(join(agentsHome, 'copilot-unpack-'));
  try {
    await unpack(packages, scratch, resolved);
    return (await finished()) ? packages : undefined;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Unpacks the installed CLI's runtime under `scratch` and moves each finished version into `packages`. */
async function unpack(
  packages: string,
  scratch: string,
  command: { command: string; args: readonly string[]; env: Readonly<Record<string, string>> },
): Promise<void> {
  const home = join(scratch, 'home');
  const cache = join(scratch, 'cache');
  await mkdir(home, { recursive: true });
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(command.command, [...command.args.filter((a) => a !== '--acp'), '--version'], {
      env: {
        ...command.env,
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CACHE_HOME: cache,
        COPILOT_OFFLINE: 'true',
        NO_COLOR: '1',
        CI: '1',
      },
      stdio: 'ignore',
    });
    // A CLI that never answers leaves each test to unpack for itself, as before.
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', () => resolve(null));
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve(exit);
    });
  });
  const unpacked = join(cache, 'copilot', 'pkg');
  if (code !== 0 || !existsSync(unpacked)) return;
  for (const platform of await readdir(unpacked))
    for (const version of await readdir(join(unpacked, platform))) {
      const from = join(unpacked, platform, version);
      const target = join(packages, platform, version);
      if (!existsSync(join(from, DONE)) || existsSync(join(target, DONE))) continue;
      await mkdir(join(packages, platform), { recursive: true });
      await rename(from, target).catch((error: unknown) => {
        if (!existsSync(join(target, DONE))) throw error;
      });
    }
}
