// Listing every session of every agent (or one), one home at a time.
import type { AdapterContext, ListEntry, ListFailure, SessionAdapter } from './adapter.js';
import { adapterTable, findAdapter } from './catalog.js';
import type { SessionPlatform } from './platform.js';
import { adapterContext } from './read.js';
import { readFailed } from './result.js';

export interface ListSessionsOptions {
  /** One agent id or alias; all agents when absent. */
  readonly agent?: string;
  readonly providers?: readonly SessionAdapter[];
  readonly signal?: AbortSignal;
}

/**
 * Session heads of every agent's homes. A home that does not exist is not an error (the agent
 * is not installed); a home or file that cannot be read yields `{ ref, error }` and the
 * listing goes on. An unknown agent name yields one failure naming it.
 */
export function listSessions(
  platform: SessionPlatform,
  options: ListSessionsOptions = {},
): AsyncGenerator<ListEntry> {
  return eachHome(platform, options, (adapter, ctx, home) => adapter.list(ctx, home));
}

/**
 * What `perHome` finds in each existing home of the chosen agents, in table order, each
 * session (by path) and each failure (by ref) once: the walk that listing and discovery share.
 */
export async function* eachHome<T extends { path: string }>(
  platform: SessionPlatform,
  options: ListSessionsOptions,
  perHome: (adapter: SessionAdapter, ctx: AdapterContext, home: string) => AsyncIterable<T | ListFailure>,
): AsyncGenerator<T | ListFailure> {
  const { signal, providers } = options;
  let adapters = adapterTable(providers);
  if (options.agent !== undefined) {
    const one = findAdapter(options.agent, providers);
    if (!one) {
      yield { ref: options.agent, error: readFailed(options.agent, new Error('unknown agent')) };
      return;
    }
    adapters = [one];
  }
  const ctx = adapterContext(platform, signal);
  const seen = new Set<string>();
  for (const adapter of adapters) {
    for (const home of adapter.homes(platform)) {
      signal?.throwIfAborted();
      let isDirectory: boolean;
      try {
        isDirectory = (await platform.fs.stat(home)).isDirectory;
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'ENOENT') continue;
        yield { ref: home, error: readFailed(home, cause) };
        continue;
      }
      if (!isDirectory) {
        yield { ref: home, error: readFailed(home, new Error('not a directory')) };
        continue;
      }
      for await (const entry of perHome(adapter, ctx, home)) {
        signal?.throwIfAborted();
        const key = 'ref' in entry ? `!${entry.ref}` : entry.path;
        if (seen.has(key)) continue;
        seen.add(key);
        yield entry;
      }
    }
  }
}
