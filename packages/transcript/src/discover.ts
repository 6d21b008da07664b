// Finding every session without reading heads: for callers that go on to read every file
// (summarizing them all), where a listing's head reads would be paid twice.
import type { AdapterContext, DiscoverEntry, SessionAdapter } from './adapter.js';
import { eachHome, type ListSessionsOptions } from './list.js';
import type { SessionPlatform } from './platform.js';

/**
 * The sessions of listSessions, in its order, as agent, id and path. With an adapter's own
 * `discover`, a file whose head the listing reports as a failure is found here as a session
 * (reading it fails in its own right); other failures are the listing's. Adapters without
 * `discover` are listed.
 */
export function discoverSessions(
  platform: SessionPlatform,
  options: ListSessionsOptions = {},
): AsyncGenerator<DiscoverEntry> {
  return eachHome(platform, options, discoverHome);
}

async function* discoverHome(
  adapter: SessionAdapter,
  ctx: AdapterContext,
  home: string,
): AsyncGenerator<DiscoverEntry> {
  if (adapter.discover) {
    yield* adapter.discover(ctx, home);
    return;
  }
  for await (const entry of adapter.list(ctx, home))
    yield 'ref' in entry ? entry : { agent: entry.agent, id: entry.id, path: entry.path };
}
