// What the ops see of the drive side: the open sessions this server drives, found by the id a client
// names, and the one action taken on them here (closing one). Read from the drive's event log and
// its wire server, through their public methods only.
import type { AgentWireServer } from '../drive/agent-wire-server.js';
import type { DrivenSessionRecord } from '../drive/event-log.js';

export interface DrivenSession {
  readonly sessionRef: string;
  readonly workstation: string;
  readonly agentKey: string;
  readonly bridge: string;
  readonly cwd: string;
  readonly nativeSessionId: string | null;
}

export interface DriveAccess {
  /** The open driven session a client names by its agent's session id or by the drive's own reference
   * (which is all a session has before its agent reports an id). */
  find(sid: string): Promise<DrivenSession | undefined>;
  /** Whether the workstation is connected now. */
  connected(workstation: string): boolean;
  /** Closes the session on its workstation (which ends the agent's process) and marks it closed. */
  close(sessionRef: string): void;
}

export interface DriveAccessSource {
  readonly wire: AgentWireServer;
  /** The open sessions of one workstation, from the drive's event log. */
  readonly openOf: (workstation: string) => Promise<readonly DrivenSessionRecord[]>;
  /** Every workstation name a session could have been opened on: connected or not. */
  readonly workstations: () => readonly string[];
}

export function driveAccess(source: DriveAccessSource): DriveAccess {
  return {
    async find(sid) {
      const names = new Set([...source.wire.workstations(), ...source.workstations()]);
      const open = (await Promise.all([...names].map((name) => source.openOf(name)))).flat();
      return (
        open.find((r) => r.nativeSessionId === sid || (r.nativeSessionId === null && r.sessionRef === sid)) ??
        open.find((r) => r.sessionRef === sid)
      );
    },
    connected: (workstation) => source.wire.workstations().includes(workstation),
    close: (sessionRef) => source.wire.closeSession(sessionRef),
  };
}
