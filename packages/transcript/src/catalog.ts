// The catalog of agents: ids, aliases and where each keeps its sessions.
import type { SessionAdapter } from './adapter.js';
import { builtinSessionAdapters } from './adapters/index.js';
import type { SessionPlatform } from './platform.js';

/** The built-in adapters, then the caller's extra ones (an extra one with a built-in id replaces it). */
export function adapterTable(providers: readonly SessionAdapter[] = []): SessionAdapter[] {
  const extra = new Set(providers.map((p) => p.id));
  return [...builtinSessionAdapters.filter((a) => !extra.has(a.id)), ...providers];
}

/** The adapter for an agent id or alias, case-insensitive. */
export function findAdapter(
  agent: string,
  providers: readonly SessionAdapter[] = [],
): SessionAdapter | undefined {
  const name = agent.toLowerCase();
  return adapterTable(providers).find((a) => a.id === name || a.aliases.includes(name));
}

/** The agent ids and aliases the catalog knows, for messages. */
export const knownAgentNames = (providers: readonly SessionAdapter[] = []): string[] =>
  adapterTable(providers).flatMap((a) => [a.id, ...a.aliases]);

/** Pure: each agent's home folders for an environment. */
export function agentHomes(
  platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>,
  providers: readonly SessionAdapter[] = [],
): { agent: string; homes: string[] }[] {
  return adapterTable(providers).map((a) => ({ agent: a.id, homes: a.homes(platform) }));
}
