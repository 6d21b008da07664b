// Installing adapters, with a small package standing in for an adapter so the test stays quick.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltInBridge, type BuiltInBridgeKey, resolveBridgeCommand } from '../src/bridges.js';
import { installAdapter, installedAdapterVersion } from '../src/install.js';

// semver: a few dozen kilobytes, no dependencies, one bin.
const stand = (key: string, version: string, npmPackage = 'semver'): BuiltInBridge => ({
  kind: 'builtin',
  key: key as BuiltInBridgeKey,
  name: `stand-in ${key}`,
  npmPackage,
  version,
  bin: 'semver',
  args: [],
  cli: 'semver',
  supportsSteering: false,
  supportsImageInput: false,
});

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cairn-install-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('installAdapter', () => {
  it('installs the pinned version into its own prefix, then finds it already installed', async () => {
    const bridge = stand('pinned', '7.6.3');
    const [first, second] = await Promise.all([
      installAdapter(bridge, { cairnHome: home }),
      installAdapter(bridge, { cairnHome: home }),
    ]);
    expect(first).toMatchObject({ ok: true, alreadyInstalled: false, version: '7.6.3' });
    // The second call waited for the first and found its work done.
    expect(second).toMatchObject({ ok: true, alreadyInstalled: true, version: '7.6.3' });
    const third = await installAdapter(bridge, { cairnHome: home });
    expect(third).toMatchObject({ ok: true, alreadyInstalled: true });
    expect(await installedAdapterVersion(bridge, home)).toBe('7.6.3');
    const manifest = JSON.parse(await readFile(join(home, 'agents', 'pinned', 'package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ semver: '7.6.3' });
    const resolved = await resolveBridgeCommand(bridge, { cairnHome: home, env: { PATH: '' } });
    expect(resolved).toMatchObject({ installed: true, source: 'cairn' });
    if (resolved.installed)
      expect(resolved.command).toBe(join(home, 'agents', 'pinned', 'node_modules', '.bin', 'semver'));
  });

  it('reports a pinned version npm does not have, and installs the current one only when allowed', async () => {
    const strict = await installAdapter(stand('strict', '0.0.0-never-published'), {
      cairnHome: home,
      acceptOtherVersion: false,
    });
    expect(strict).toMatchObject({
      ok: false,
      reason: 'pinned-version-unavailable',
      pinned: '0.0.0-never-published',
    });
    if (!strict.ok) {
      expect(strict.error).toMatch(/npm has no semver@0\.0\.0-never-published/);
      expect(strict.available).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(await installedAdapterVersion(stand('strict', '0.0.0-never-published'), home)).toBeUndefined();

    const lenient = await installAdapter(stand('lenient', '0.0.0-never-published'), { cairnHome: home });
    expect(lenient).toMatchObject({ ok: true, alreadyInstalled: false });
    if (lenient.ok) {
      expect(lenient.pinnedVersionUnavailable).toEqual({
        pinned: '0.0.0-never-published',
        installedInstead: lenient.version,
      });
    }
    // Asked again, it finds npm's current version already there in place of the pin.
    const again = await installAdapter(stand('lenient', '0.0.0-never-published'), { cairnHome: home });
    expect(again).toMatchObject({ ok: true, alreadyInstalled: true });
    if (again.ok && lenient.ok)
      expect(again.pinnedVersionUnavailable?.installedInstead).toBe(lenient.version);
  });

  it("gives npm's message when the package does not exist", async () => {
    const result = await installAdapter(stand('missing', '1.0.0', '@cairn-test-nonexistent/adapter-xyz'), {
      cairnHome: home,
    });
    expect(result).toMatchObject({ ok: false, reason: 'error' });
    if (!result.ok)
      expect(result.error).toMatch(/npm install @cairn-test-nonexistent\/adapter-xyz@1\.0\.0 failed: .*404/);
  });

  it('has nothing to install for a declared agent or an unknown key', async () => {
    expect(await installAdapter('no-such-agent', { cairnHome: home })).toMatchObject({
      ok: false,
      reason: 'unsupported',
    });
  });

  it('waits for a lock another live process holds, and takes over one whose owner is gone', async () => {
    await mkdir(join(home, 'agents', 'held.install-lock'), { recursive: true });
    await writeFile(join(home, 'agents', 'held.install-lock', 'pid'), String(process.ppid));
    const waited = await installAdapter(stand('held', '7.6.3'), {
      cairnHome: home,
      signal: AbortSignal.timeout(600),
    });
    expect(waited).toMatchObject({ ok: false, reason: 'aborted' });

    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    await mkdir(join(home, 'agents', 'stale.install-lock'), { recursive: true });
    await writeFile(join(home, 'agents', 'stale.install-lock', 'pid'), dead.stdout.toString());
    expect(await installAdapter(stand('stale', '7.6.3'), { cairnHome: home })).toMatchObject({ ok: true });
    expect(await exists(join(home, 'agents', 'stale.install-lock'))).toBe(false);
  });

  it('stops when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      await installAdapter(stand('aborted', '7.6.3'), { cairnHome: home, signal: controller.signal }),
    ).toMatchObject({
      ok: false,
      reason: 'aborted',
    });
  });
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
