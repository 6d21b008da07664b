// Dumps on disk: cairn's own folder ($CAIRN_HOME), its config's presets, and the atomic write of a
// dump file. cairn writes only under its own folder or where it is told, and never into the folders
// the agents keep their sessions in.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { DumpPreset, SessionDumpWriteArgs, SessionDumpWriteResult } from '@cairn/protocol';
import { parseJson } from './depth.js';
import { dumpJsonPieces, redactDumpFile, writePiecesAtomic } from './dump-stream.js';
import { buildDump, type DumpError } from './items/dump.js';
import { dumpMarkdownBlocks } from './items/markdown.js';
import { type PresetConfigError, presetsOfConfig } from './items/presets.js';
import type { Transcript } from './model.js';
import { err, ok, type Result } from './result.js';

export interface DumpWriteFailed {
  readonly _tag: 'DumpWriteFailed';
  readonly path: string;
  readonly message: string;
}

/** The path asked for lies inside an agent's own folders. */
export interface DumpPathRefused {
  readonly _tag: 'DumpPathRefused';
  readonly path: string;
  readonly message: string;
}

export interface ConfigUnreadable {
  readonly _tag: 'ConfigUnreadable';
  readonly path: string;
  readonly message: string;
}

export type WriteDumpError =
  | DumpError
  | PresetConfigError
  | ConfigUnreadable
  | DumpWriteFailed
  | DumpPathRefused;

/** `$CAIRN_HOME`, else `~/.cairn`. */
export function cairnHome(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home = homedir(),
): string {
  const set = env.CAIRN_HOME;
  return set !== undefined && set !== '' ? resolve(set) : join(env.HOME || home, '.cairn');
}

export const configPath = (home: string): string => join(home, 'config.json');

/** cairn's config as parsed JSON; undefined when there is none yet. */
export async function readCairnConfig(home: string): Promise<Result<unknown, ConfigUnreadable>> {
  const path = configPath(home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err({
      _tag: 'ConfigUnreadable',
      path,
      message: `cannot read ${path}: ${(cause as Error).message}`,
    });
  }
  try {
    return ok(parseJson(text));
  } catch (cause) {
    return err({
      _tag: 'ConfigUnreadable',
      path,
      message: `${path} is not JSON: ${(cause as Error).message}`,
    });
  }
}

/** The presets of `$CAIRN_HOME/config.json` over the built-ins, checked as a whole. */
export async function readDumpPresets(
  home: string,
): Promise<Result<DumpPreset[], ConfigUnreadable | PresetConfigError>> {
  const config = await readCairnConfig(home);
  if (!config.ok) return config;
  const presets = presetsOfConfig(config.value);
  if (!presets.ok) return err({ ...presets.error, message: `${configPath(home)}: ${presets.error.message}` });
  return presets;
}

const INSTANCE = /^[0-9a-f]{32}$/;

/** This cairn's instance id: made once, kept in `$CAIRN_HOME/instance-id`. */
export async function instanceId(home: string): Promise<Result<string, DumpWriteFailed>> {
  const path = join(home, 'instance-id');
  try {
    const kept = (await readFile(path, 'utf8')).trim();
    if (INSTANCE.test(kept)) return ok(kept);
  } catch {
    // None yet: made below.
  }
  const id = randomBytes(16).toString('hex');
  const written = await writeAtomic(path, id);
  if (!written.ok) return written;
  // Two first runs may race; whichever rename landed last is the id from now on.
  try {
    const kept = (await readFile(path, 'utf8')).trim();
    return ok(INSTANCE.test(kept) ? kept : id);
  } catch {
    return ok(id);
  }
}

export interface WriteDumpOptions {
  /** `$CAIRN_HOME`; dumps go to its `dumps/` folder unless `out` is given. */
  readonly home: string;
  /** Where to write instead, relative to the working directory. */
  readonly out?: string | undefined;
  /** Folders never written into: the agents' homes and the session's own folders. */
  readonly forbidden?: readonly string[];
  /** The presets requests may name; read from the config when absent. */
  readonly presets?: readonly DumpPreset[];
  /** ms since the epoch; now when absent. */
  readonly now?: number;
  /** Stops before the file is written; an abort rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/**
 * Writes the dump `args` ask for (JSON, or Markdown with `format: 'md'`) and answers as
 * `session_dump_write` does.
 */
export async function writeDump(
  t: Transcript,
  args: SessionDumpWriteArgs,
  options: WriteDumpOptions,
): Promise<Result<SessionDumpWriteResult, WriteDumpError>> {
  let presets = options.presets;
  if (presets === undefined) {
    const read = await readDumpPresets(options.home);
    if (!read.ok) return read;
    presets = read.value;
  }
  const writtenAt = options.now ?? Date.now();
  const built = buildDump(t, args, { presets, writtenAt });
  if (!built.ok) return built;
  const { entries } = built.value;
  let file = built.value.file;
  let redacted: Record<string, number> | undefined;
  if (args.redact !== false) {
    const r = await redactDumpFile(file);
    file = r.file;
    redacted = r.counts;
  }
  const format = args.format ?? 'json';
  // Written a piece at a time: a long session's dump is never held as one string.
  const content = format === 'md' ? markdownPieces(file) : dumpJsonPieces(file);

  const stamp = new Date(writtenAt).toISOString().replace(/[:.]/g, '-');
  const name = `${safeName(args.sid)}${file.agent_id === undefined ? '' : `-agent-${safeName(file.agent_id)}`}-${stamp}.dump.${format}`;
  const path = options.out === undefined ? join(options.home, 'dumps', name) : resolve(options.out);
  const refused = await insideAny(path, options.forbidden ?? []);
  if (refused !== undefined)
    return err({
      _tag: 'DumpPathRefused',
      path,
      message: `refusing to write ${path}: it is inside ${refused}, which belongs to an agent`,
    });
  const instance = await instanceId(options.home);
  if (!instance.ok) return instance;
  options.signal?.throwIfAborted();
  const written = await writePiecesAtomic(path, content, options.signal);
  if (!written.ok) return written;
  const bytes = written.value;
  return ok({ path, instance: instance.value, entries, ids: file.ids, bytes, ...(redacted && { redacted }) });
}

/** renderDumpMarkdown's text, in its blocks: a blank line between them and a newline at the end. */
function* markdownPieces(file: Parameters<typeof dumpMarkdownBlocks>[0]): Generator<string> {
  let first = true;
  for (const block of dumpMarkdownBlocks(file)) {
    yield first ? block : `\n\n${block}`;
    first = false;
  }
  yield '\n';
}

/** Writes beside the target and renames over it, so a reader never sees half a file. */
export async function writeAtomic(path: string, content: string): Promise<Result<void, DumpWriteFailed>> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(temp, content, { flag: 'wx', mode: 0o600 });
    await rename(temp, path);
    return ok(undefined);
  } catch (cause) {
    await rm(temp, { force: true }).catch(() => {});
    return err({
      _tag: 'DumpWriteFailed',
      path,
      message: `cannot write ${path}: ${(cause as Error).message}`,
    });
  }
}

const safeName = (s: string): string => s.replace(/[^A-Za-z0-9._-]/g, '_');

/** The first folder of `folders` that `path` lies in, following symlinks as far as they exist. */
export async function insideAny(path: string, folders: readonly string[]): Promise<string | undefined> {
  const target = await realPathOfNearest(path);
  for (const folder of folders) {
    if (!isAbsolute(folder)) continue;
    const real = await realPathOfNearest(folder);
    if (target === real || target.startsWith(real.endsWith(sep) ? real : `${real}${sep}`)) return folder;
  }
  return undefined;
}

/** The real path of `path`, resolving its nearest existing ancestor (the rest may not exist yet). */
async function realPathOfNearest(path: string): Promise<string> {
  const rest: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(await realpath(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return resolve(path);
      rest.push(basename(at));
      at = parent;
    }
  }
}
