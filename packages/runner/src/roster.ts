// The roster `agent_hello` carries: every bridge, built-in or declared, with what is known of it
// on this machine before any agent starts.
import type { BridgeInfo } from '@cairn/protocol';
import {
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
