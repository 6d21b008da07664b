// Installing a built-in agent's ACP adapter: the pinned package from npm into
// `$CAIRN_HOME/agents/<key>`, a prefix of its own with its own package.json, never globally.
//
// Two installs of the same key never run at once: within a process the second call waits for
// the first; across processes a lock folder beside the install folder does the same (a lock
// whose owner has died is taken over).
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { InstallProgress } from '@cairn/protocol';
import {
  adapterDir,
  type Bridge,
  type BuiltInBridge,
  builtInBridge,
  companionsInstalled,
  type Env,
  findBridge,
  installedAdapterVersion,
} from './bridges.js';
import { ownerOnlyTree } from './owner-only.js';

export { installedAdapterVersion };

export type InstallResult =
  | {
      readonly ok: true;
      /** The pinned version was already there; nothing was fetched. */
      readonly alreadyInstalled: boolean;
      /** The version now installed. */
      readonly version: string;
      readonly dir: string;
      /** npm does not have the pinned version, so another one was installed. */
      readonly pinnedVersionUnavailable?: { readonly pinned: string; readonly installedInstead: string };
    }
  | {
      readonly ok: false;
      /**
       * `unsupported`: there is nothing to install (a declared agent, or a key cairn does not
       * know); `pinned-version-unavailable`: npm does not have the pinned version and installing
       * another was not allowed; `aborted`: the signal fired; `error`: npm failed.
       */
      readonly reason: 'unsupported' | 'pinned-version-unavailable' | 'aborted' | 'error';
      readonly error: string;
      /** With `pinned-version-unavailable`: the pin, and the version npm would install instead. */
      readonly pinned?: string;
      readonly available?: string;
    };

export interface InstallOptions {
  readonly cairnHome: string;
  readonly signal?: AbortSignal;
  /**
   * When npm does not have the pinned version, install its current one instead and say so
   * (`pinnedVersionUnavailable`). True when absent.
   */
  readonly acceptOtherVersion?: boolean;
  /** The environment npm runs with; `process.env` when absent. */
  readonly env?: Env;
  /** The npm executable; `npm` on PATH when absent. */
  readonly npm?: string;
  /** Hears the install's phases and npm's output lines as they come (npm then logs its fetches). */
  readonly onProgress?: (progress: InstallProgress) => void;
}

const inFlight = new Map<string, Promise<InstallResult>>();

/**
 * Installs the pinned adapter of `key` (or of the bridge given) under `cairnHome`. Failures are
 * values; it throws only on a defect.
 */
export async function installAdapter(
  key: string | BuiltInBridge,
  options: InstallOptions,
): Promise<InstallResult> {
  let bridge: Bridge | undefined;
  if (typeof key === 'string') {
    bridge = builtInBridge(key) ?? (await findBridge(options.cairnHome, key));
  } else {
    bridge = key;
  }
  if (bridge === undefined) {
    return { ok: false, reason: 'unsupported', error: `cairn knows no agent named ${String(key)}` };
  }
  if (bridge.kind === 'declared') {
    return {
      ok: false,
      reason: 'unsupported',
      error: `${bridge.name} is declared in config.json as its own command; cairn has nothing to install`,
    };
  }
  const built = bridge;
  const dir = adapterDir(options.cairnHome, built.key);
  // Serialize per folder in this process; the lock folder covers other processes.
  const previous = inFlight.get(dir) ?? Promise.resolve(undefined);
  const run = previous.then(
    () => installLocked(built, dir, options),
    () => installLocked(built, dir, options),
  );
  inFlight.set(dir, run);
  try {
    return await run;
  } finally {
    if (inFlight.get(dir) === run) inFlight.delete(dir);
  }
}

async function installLocked(
  bridge: BuiltInBridge,
  dir: string,
  options: InstallOptions,
): Promise<InstallResult> {
  if (options.signal?.aborted) return aborted();
  const present = await installedAdapterVersion(bridge, options.cairnHome);
  if (present === bridge.version && (await companionsInstalled(bridge, options.cairnHome)))
    return { ok: true, alreadyInstalled: true, version: present, dir };
  const lock = await acquireLock(`${dir}.install-lock`, options.signal);
  if (lock === undefined) return aborted();
  try {
    // Another process may have finished the install while this one waited for the lock.
    const now = await installedAdapterVersion(bridge, options.cairnHome);
    if (now === bridge.version && (await companionsInstalled(bridge, options.cairnHome)))
      return { ok: true, alreadyInstalled: true, version: now, dir };
    return await install(bridge, dir, options);
  } finally {
    await lock.release();
  }
}

async function install(bridge: BuiltInBridge, dir: string, options: InstallOptions): Promise<InstallResult> {
  options.onProgress?.({ phase: 'preparing' });
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // A manifest of its own, so npm treats this folder as the project and never walks up. Kept
    // when present: it lists what an earlier install put here.
    await writeFile(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: `cairn-agent-${bridge.key}`, private: true, description: `${bridge.name} ACP adapter, installed by cairn` }, null, 2)}\n`,
      { flag: 'wx', mode: 0o600 },
    ).catch((cause: NodeJS.ErrnoException) => {
      if (cause.code !== 'EEXIST') throw cause;
    });
  } catch (cause) {
    return { ok: false, reason: 'error', error: `cannot prepare ${dir}: ${(cause as Error).message}` };
  }
  const spec = `${bridge.npmPackage}@${bridge.version}`;
  // Companions go in with the adapter, always at their pins: the adapter is tested with those.
  const companions = (bridge.companions ?? []).map((c) => `${c.npmPackage}@${c.version}`);
  const first = await npmInstall(dir, [spec, ...companions], options);
  if (first.aborted) return aborted();
  if (first.code === 0) return settled(bridge, dir, options, undefined);
  if (!isNoMatchingVersion(first.output)) {
    return { ok: false, reason: 'error', error: `npm install ${spec} failed: ${npmMessage(first.output)}` };
  }
  // A companion's pin is not replaced by another version: the adapter was tested with that one.
  const missingCompanion = companions.find((c) => first.output.includes(c));
  if (missingCompanion !== undefined) {
    return {
      ok: false,
      reason: 'error',
      error: `npm has no ${missingCompanion}, which ${bridge.name} needs: ${npmMessage(first.output)}`,
    };
  }
  // npm has the package but not the pinned version.
  const available = await npmView(bridge.npmPackage, dir, options);
  if (options.acceptOtherVersion === false) {
    return {
      ok: false,
      reason: 'pinned-version-unavailable',
      error:
        available === undefined
          ? `npm has no ${spec}`
          : `npm has no ${spec}; its current version is ${available}`,
      pinned: bridge.version,
      ...(available === undefined ? {} : { available }),
    };
  }
  // An earlier install already put npm's current version here in place of the pin.
  const present = await installedAdapterVersion(bridge, options.cairnHome);
  if (
    present !== undefined &&
    present === available &&
    (await companionsInstalled(bridge, options.cairnHome))
  ) {
    return {
      ok: true,
      alreadyInstalled: true,
      version: present,
      dir,
      pinnedVersionUnavailable: { pinned: bridge.version, installedInstead: present },
    };
  }
  const other = await npmInstall(
    dir,
    [available === undefined ? bridge.npmPackage : `${bridge.npmPackage}@${available}`, ...companions],
    options,
  );
  if (other.aborted) return aborted();
  if (other.code !== 0) {
    return {
      ok: false,
      reason: 'error',
      error: `npm has no ${spec}, and installing another version failed: ${npmMessage(other.output)}`,
    };
  }
  return settled(bridge, dir, options, bridge.version);
}

async function settled(
  bridge: BuiltInBridge,
  dir: string,
  options: InstallOptions,
  pinnedUnavailable: string | undefined,
): Promise<InstallResult> {
  options.onProgress?.({ phase: 'checking' });
  ownerOnlyTree(dir);
  const version = await installedAdapterVersion(bridge, options.cairnHome);
  if (version === undefined) {
    return {
      ok: false,
      reason: 'error',
      error: `npm finished, but ${bridge.npmPackage} did not leave ${bridge.bin} in ${dir}`,
    };
  }
  if (!(await companionsInstalled(bridge, options.cairnHome))) {
    const wanted = (bridge.companions ?? []).map((c) => `${c.npmPackage}@${c.version}`).join(', ');
    return { ok: false, reason: 'error', error: `npm finished, but ${wanted} is not complete in ${dir}` };
  }
  if (pinnedUnavailable !== undefined || version !== bridge.version) {
    return {
      ok: true,
      alreadyInstalled: false,
      version,
      dir,
      pinnedVersionUnavailable: { pinned: bridge.version, installedInstead: version },
    };
  }
  return { ok: true, alreadyInstalled: false, version, dir };
}

const aborted = (): InstallResult => ({ ok: false, reason: 'aborted', error: 'the install was stopped' });

// ---------------------------------------------------------------------------------------------
// npm

interface NpmRun {
  readonly code: number | null;
  readonly output: string;
  readonly aborted: boolean;
}

function runNpm(args: readonly string[], cwd: string, options: InstallOptions): Promise<NpmRun> {
  return new Promise((settle) => {
    const npm = options.npm ?? (process.platform === 'win32' ? 'npm.cmd' : 'npm');
    let output = '';
    let done = false;
    const child = spawn(npm, args, {
      cwd,
      env: { ...(options.env ?? process.env), npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      shell: process.platform === 'win32',
    });
    let partial = '';
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      output += text;
      if (output.length > 64_000) output = output.slice(-32_000);
      if (options.onProgress === undefined) return;
      // Whole lines only, as npm writes them.
      const lines = (partial + text).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const shown = line.trim();
        if (shown !== '') options.onProgress({ phase: 'downloading', line: shown.slice(0, 500) });
      }
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const onAbort = () => {
      try {
        if (child.pid !== undefined)
          process.kill(process.platform === 'win32' ? child.pid : -child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (code: number | null, extra = '') => {
      if (done) return;
      done = true;
      options.signal?.removeEventListener('abort', onAbort);
      settle({ code, output: output + extra, aborted: options.signal?.aborted ?? false });
    };
    child.on('error', (cause) => finish(null, `\n${cause.message}`));
    child.on('close', (code) => finish(code));
  });
}

function npmInstall(dir: string, specs: readonly string[], options: InstallOptions): Promise<NpmRun> {
  options.onProgress?.({ phase: 'downloading' });
  return runNpm(
    [
      'install',
      '--prefix',
      dir,
      '--no-audit',
      '--no-fund',
      '--omit=dev',
      '--save-exact',
      // Someone watching gets npm's fetches as they happen; otherwise only its errors.
      options.onProgress === undefined ? '--loglevel=error' : '--loglevel=http',
      ...specs,
    ],
    dir,
    options,
  );
}

/** The version npm's `latest` tag points at; one registry request. */
async function npmView(pkg: string, cwd: string, options: InstallOptions): Promise<string | undefined> {
  const run = await runNpm(['view', pkg, 'version', '--loglevel=error'], cwd, options);
  const version = run.output.trim().split('\n').pop()?.trim();
  return run.code === 0 && version !== undefined && /^\d+\.\d+\.\d+/.test(version) ? version : undefined;
}

function isNoMatchingVersion(output: string): boolean {
  return /\bETARGET\b/.test(output) || /No matching version found/i.test(output);
}

/** npm's own error lines, without its log-file pointers. */
function npmMessage(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.replace(/^npm (ERR!|error)\s?/, '').trim())
    .filter(
      (l) =>
        l !== '' &&
        !/^npm http /.test(l) &&
        !/complete log of this run|A complete log|\.npm\/_logs\//i.test(l),
    );
  const text = lines.join(' ').trim();
  return text === '' ? 'npm exited without a message' : text.slice(0, 2000);
}

// ---------------------------------------------------------------------------------------------
// The lock across processes

interface Lock {
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function acquireLock(path: string, signal: AbortSignal | undefined): Promise<Lock | undefined> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  for (;;) {
    if (signal?.aborted) return undefined;
    try {
      await mkdir(path, { mode: 0o700 });
      await writeFile(join(path, 'pid'), String(process.pid), { mode: 0o600 });
      return { release: () => rm(path, { recursive: true, force: true }) };
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') throw cause;
    }
    let owner: number | undefined;
    try {
      owner = Number.parseInt(await readFile(join(path, 'pid'), 'utf8'), 10);
    } catch {
      // Just made and its pid not written yet, or left so by a crash: old means the latter.
      const made = await stat(path).then(
        (s) => s.mtimeMs,
        () => Date.now(),
      );
      if (Date.now() - made > 10_000) owner = Number.NaN;
    }
    if (owner !== undefined && (!Number.isFinite(owner) || !alive(owner))) {
      await rm(path, { recursive: true, force: true });
      continue;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
