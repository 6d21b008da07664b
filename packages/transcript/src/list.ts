// Listing every session of every agent (or one), one home at a time.
import type { ListEntry, SessionAdapter } from './adapter.js';
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
export async function* listSessions(
  platform: SessionPlatform,
  options: ListSessionsOptions = {},
): AsyncGenerator<ListEntry> {
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
      for await (const entry of adapter.list(ctx, home)) {
        signal?.throwIfAborted();
        const key = 'ref' in entry ? `!${entry.ref}` : entry.path;
        if (seen.has(key)) continue;
        seen.add(key);
        yield entry;
      }
    }
  }
}
