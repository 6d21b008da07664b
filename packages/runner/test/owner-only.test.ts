// What cairn writes for itself is its owner's alone: databases and their SQLite side files, and an
// installed adapter, whose executables stay executable by the owner.
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltInBridge, BuiltInBridgeKey } from '../src/bridges.js';
import { adapterBinPath } from '../src/bridges.js';
import { installAdapter } from '../src/install.js';
import { Journal } from '../src/journal.js';
import { ownerOnlyFile } from '../src/owner-only.js';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cairn-owner-only-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Every entry under `root` with its permission bits; links are listed, not followed. */
function walk(root: string): { path: string; dir: boolean; link: boolean; mode: number }[] {
  const st = lstatSync(root);
  const here = { path: root, dir: st.isDirectory(), link: st.isSymbolicLink(), mode: st.mode & 0o777 };
  return here.dir ? [here, ...readdirSync(root).flatMap((n) => walk(join(root, n)))] : [here];
}

describe('owner-only files', () => {
  it('a journal made in a new folder is 0600 in a 0700 folder, and so are its -wal and -shm files', () => {
    const path = join(home, 'journal', 'deeper', 'journal.sqlite');
    const journal = Journal.open(path);
    try {
      const entries = walk(join(home, 'journal'));
      expect(entries.map((e) => e.path.slice(home.length))).toEqual([
        '/journal',
        '/journal/deeper',
        '/journal/deeper/journal.sqlite',
        '/journal/deeper/journal.sqlite-shm',
        '/journal/deeper/journal.sqlite-wal',
      ]);
      for (const e of entries) expect(e.mode, e.path).toBe(e.dir ? 0o700 : 0o600);
    } finally {
      journal.close();
    }
  });

  it('an existing file readable by others is tightened, its content kept; :memory: is left alone', () => {
    const path = join(home, 'loose.sqlite');
    writeFileSync(path, 'kept');
    chmodSync(path, 0o644);
    expect(ownerOnlyFile(path)).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('kept');
    const fresh = join(home, 'fresh.sqlite');
    ownerOnlyFile(fresh);
    expect(statSync(fresh).size).toBe(0);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    expect(ownerOnlyFile(':memory:')).toBe(':memory:');
  });

  it('an installed adapter holds no file or folder that others may read', async () => {
    // semver: a few dozen kilobytes, no dependencies, one bin.
    const bridge: BuiltInBridge = {
      kind: 'builtin',
      key: 'modes' as BuiltInBridgeKey,
      name: 'stand-in',
      npmPackage: 'semver',
      version: '7.6.3',
      bin: 'semver',
      args: [],
      cli: 'semver',
      supportsSteering: false,
      supportsImageInput: false,
    };
    const installed = await installAdapter(bridge, { cairnHome: home });
    expect(installed).toMatchObject({ ok: true });
    const entries = walk(join(home, 'agents'));
    expect(entries.length).toBeGreaterThan(5);
    for (const e of entries.filter((x) => !x.link)) {
      if (e.dir) expect(e.mode, e.path).toBe(0o700);
      else expect(e.mode & 0o077, e.path).toBe(0);
    }
    // The adapter's command is still the owner's to run.
    expect(statSync(realpathSync(adapterBinPath(home, bridge))).mode & 0o100).toBe(0o100);
  }, 120_000);
});
