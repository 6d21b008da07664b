// The roster `agent_hello` carries: every bridge, built-in or declared, with what is known of it
// on this machine before any agent starts.
import type { BridgeInfo } from '@cairn/protocol';
import {
  BUILT_IN_BRIDGES,
  cliInstalled,
  type Env,
  installedAdapterVersion,
  readRoster,
  resolveBridgeCommand,
} from './bridges.js';

export async function rosterInfo(cairnHome: string, env: Env): Promise<BridgeInfo[]> {
  const { bridges } = await readRoster(cairnHome);
  return Promise.all(
    bridges.map(async (bridge): Promise<BridgeInfo> => {
      const resolved = await resolveBridgeCommand(bridge, { cairnHome, env });
      const version =
        bridge.kind === 'builtin' ? await installedAdapterVersion(bridge, cairnHome) : undefined;
      const info: BridgeInfo = {
        key: bridge.key,
        name: bridge.name,
        cliInstalled: await cliInstalled(bridge, env),
        version: version ?? (bridge.kind === 'builtin' ? null : null),
      };
      if (resolved.installed) info.adapterInstalled = true;
      if (bridge.kind === 'builtin' && bridge.supportsSteering) info.supportsSteering = true;
      if (bridge.kind === 'builtin' && bridge.supportsImageInput) info.supportsImageInput = true;
      return info;
    }),
  );
}

/** The roster a workstation says, with what is wrong with config.json (as messages). */
export interface RosterSnapshot {
  readonly bridges: BridgeInfo[];
  readonly problems: string[];
}

/**
 * The roster now. When config.json cannot be read as a whole (not JSON, unreadable, no `agents`
 * object), the declared agents of `previous` are kept beside the built-ins: a half-saved edit does
 * not take agents away.
 */
export async function rosterSnapshot(
  cairnHome: string,
  env: Env,
  previous?: RosterSnapshot,
): Promise<RosterSnapshot> {
  const { problems } = await readRoster(cairnHome);
  const bridges = await rosterInfo(cairnHome, env);
  const messages = problems.map((p) => p.message);
  const broken = problems.some((p) => p.key === null);
  if (!broken || previous === undefined) return { bridges, problems: messages };
  const builtIn = new Set(BUILT_IN_BRIDGES.map((b) => b.key as string));
  const kept = previous.bridges.filter((b) => !builtIn.has(b.key));
  return {
    bridges: [...bridges.filter((b) => builtIn.has(b.key)), ...kept],
    problems: [...messages, 'the agents it declared before are kept until it is fixed'],
  };
}
