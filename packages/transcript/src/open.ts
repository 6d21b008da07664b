// Finding a session's adapter and reading its files: the shared first half of load and summarize.
import type { Provider, SessionAdapter, SourceFile } from './adapter.js';
import { adapterTable, findAdapter, knownAgentNames } from './catalog.js';
import type { SessionTarget } from './model.js';
import type { SessionPlatform } from './platform.js';
import { adapterContext, readHead, readSourceFile } from './read.js';
import { err, type LoadTranscriptError, ok, type Result, readFailed, sessionNotFound } from './result.js';
import { isWireId } from './values.js';

export interface OpenOptions {
  /** Adapters for this call besides the built-in ones (one with a built-in id replaces it). */
  readonly providers?: readonly Provider[];
  readonly signal?: AbortSignal;
  readonly onProgress?: (bytes: number) => void;
}

export interface OpenedSession {
  adapter: SessionAdapter;
  files: SourceFile[];
}

const errnoCode = (cause: unknown): string | undefined => (cause as NodeJS.ErrnoException | undefined)?.code;

/** An abort rejects with the signal's reason, as the contract asks, whatever the I/O layer threw. */
function rethrowIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

export async function openSession(
  platform: SessionPlatform,
  target: SessionTarget,
  options: OpenOptions = {},
): Promise<Result<OpenedSession, LoadTranscriptError>> {
  const found = await findSession(platform, target, options);
  if (!found.ok) return found;
  const { adapter, paths } = found.value;
  const files = await readSessionFiles(platform, paths, options);
  return files.ok ? ok({ adapter, files: files.value }) : files;
}

/** Each of `paths` read whole, in order; `bytes` already read before them count in the progress. */
export async function readSessionFiles(
  platform: SessionPlatform,
  paths: readonly string[],
  options: OpenOptions = {},
  bytes = 0,
): Promise<Result<SourceFile[], LoadTranscriptError>> {
  const { signal } = options;
  const files: SourceFile[] = [];
  for (const path of paths) {
    try {
      const file = await readSourceFile(platform, path, signal);
      files.push(file);
      bytes += file.data.length;
      options.onProgress?.(bytes);
    } catch (cause) {
      rethrowIfAborted(signal);
      return err(openFailure(path, cause));
    }
  }
  return ok(files);
}

/** What fails a read of one of a session's files. */
export const openFailure = (path: string, cause: unknown): LoadTranscriptError =>
  errnoCode(cause) === 'ENOENT' ? sessionNotFound(path) : readFailed(path, cause);

/**
 * Whether a target's session id, when it gives one, is an id a session can have (a letter or digit,
 * then letters, digits, `.`, `_`, `-`: what a listing gives and the wire carries). A target naming an
 * agent with an id that is not one was not made from a listing of that agent, so its agent is not
 * taken on trust: every adapter's detection decides, as for a target naming none.
 */
export const targetIdParses = (target: SessionTarget): boolean =>
  target.sessionId === undefined || isWireId(target.sessionId);

/** A session's adapter and its files' paths (main file first), without reading the files. */
export async function findSession(
  platform: SessionPlatform,
  target: SessionTarget,
  options: OpenOptions = {},
): Promise<Result<{ adapter: SessionAdapter; paths: string[] }, LoadTranscriptError>> {
  const { signal, providers } = options;
  rethrowIfAborted(signal);
  const ctx = adapterContext(platform, signal);

  let adapter: SessionAdapter | undefined;
  let paths: Awaited<ReturnType<SessionAdapter['sessionFiles']>> | undefined;
  if (target.agent !== undefined && targetIdParses(target)) {
    adapter = findAdapter(target.agent, providers);
    if (!adapter) {
      return err({
        _tag: 'CapabilityUnsupported',
        agent: target.agent,
        message: `no adapter for agent '${target.agent}' (known: ${knownAgentNames(providers).join(', ')})`,
      });
    }
  } else {
    let head: Uint8Array | undefined;
    try {
      const stat = await platform.fs.stat(target.path);
      if (stat.isDirectory)
        return err(readFailed(target.path, new Error('is a directory, not a session file')));
      head = await readHead(platform, target.path);
    } catch (cause) {
      rethrowIfAborted(signal);
      if (errnoCode(cause) !== 'ENOENT') return err(readFailed(target.path, cause));
      // A main file that is gone can still name a session whose other files remain.
      for (const a of adapterTable(providers)) {
        const found = await a.sessionFiles(ctx, target.path);
        rethrowIfAborted(signal);
        if (found.ok) {
          adapter = a;
          paths = found;
          break;
        }
      }
      if (!adapter) return err(sessionNotFound(target.path));
    }
    const first = head;
    if (first !== undefined) adapter = adapterTable(providers).find((a) => a.detect(target.path, first));
    if (!adapter) {
      return err({
        _tag: 'NoAdapterAccepted',
        path: target.path,
        message: `${target.path}: no adapter recognises this file`,
      });
    }
  }

  paths ??= await adapter.sessionFiles(ctx, target.path);
  rethrowIfAborted(signal);
  if (!paths.ok) return paths;
  return ok({ adapter, paths: paths.value });
}
