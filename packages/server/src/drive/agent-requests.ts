// Asking a workstation about its agents rather than about a session: checking a bridge, signing an
// agent in, installing its adapter and listing the agent's own sessions. A sign-in that sends the
// person to an address, and an install, report their steps before the final answer.
import { randomUUID } from 'node:crypto';
import type { AgentFrame, AgentFrameOf, InstallProgress } from '@cairn/protocol';
import type { Link } from './wire-link.js';

type Reply<T extends AgentFrame['t']> = AgentFrameOf<T>;

export class AgentRequests {
  /** Sign-ins under way that want to hear the address to open. */
  readonly authSteps = new Map<
    string,
    (step: { url?: string; elicitationId: string; done: boolean }) => void
  >();
  /** Installs under way that want to hear their progress. */
  readonly installSteps = new Map<string, (progress: InstallProgress) => void>();

  /** The connected workstations by name, as the server keeps them. */
  constructor(private readonly byName: ReadonlyMap<string, Link>) {}

  async verify(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<Reply<'agent_verified'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return { t: 'agent_verified', id, ok: false, error: `workstation ${workstation} is not connected` };
    const frame: AgentFrameOf<'agent_verify'> = {
      t: 'agent_verify',
      id,
      bridge,
      query,
      ...(timeoutMs ? { timeoutMs } : {}),
    };
    return (await link.request(frame, (timeoutMs ?? 30_000) + 15_000)) as Reply<'agent_verified'>;
  }

  /**
   * Signs in with one of the agent's methods. A sign-in that sends the person to an address calls
   * `onUrl` with it (and again when that step is done); the promise settles with the final answer.
   */
  async authenticate(
    workstation: string,
    bridge: string,
    methodId: string,
    query: Record<string, unknown>,
    onUrl?: (step: { url?: string; elicitationId: string; done: boolean }) => void,
  ): Promise<Reply<'agent_authenticated'>> {
    const id = randomUUID();
    if (onUrl) this.authSteps.set(id, onUrl);
    const link = this.byName.get(workstation);
    if (!link)
      return {
        t: 'agent_authenticated',
        id,
        ok: false,
        error: `workstation ${workstation} is not connected`,
      };
    try {
      return (await link.request(
        { t: 'agent_authenticate', id, bridge, methodId, query },
        180_000,
      )) as Reply<'agent_authenticated'>;
    } finally {
      this.authSteps.delete(id);
    }
  }

  /** Installs a bridge's adapter; `onProgress` hears its phases and npm's lines as they come. */
  async install(
    workstation: string,
    bridge: string,
    onProgress?: (progress: InstallProgress) => void,
  ): Promise<Reply<'agent_installed'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return { t: 'agent_installed', id, ok: false, error: `workstation ${workstation} is not connected` };
    if (onProgress) this.installSteps.set(id, onProgress);
    try {
      return (await link.request(
        { t: 'agent_install', id, bridge },
        15 * 60_000,
      )) as Reply<'agent_installed'>;
    } finally {
      this.installSteps.delete(id);
    }
  }

  async listNative(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
  ): Promise<Reply<'agent_native_sessions'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return {
        t: 'agent_native_sessions',
        id,
        ok: false,
        error: `workstation ${workstation} is not connected`,
      };
    return (await link.request(
      { t: 'agent_list_native', id, bridge, query },
      60_000,
    )) as Reply<'agent_native_sessions'>;
  }
}
