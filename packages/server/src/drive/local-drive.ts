// The drive side in one process: the wire's server half, a workstation with its journal under
// `$CAIRN_HOME`, and the link between them. `cairn run` and `cairn agents` use it without a
// daemon; `cairn serve` uses the same parts with its event log on disk.
import { join } from 'node:path';
import { Journal, type LaunchExtras, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { markTurnErrorsOnNode } from '@cairn/transcript';
import { AgentWireServer } from './agent-wire-server.js';
import { EventLog } from './event-log.js';
import { linkInProcess } from './local-link.js';

export const LOCAL_WORKSTATION = 'local';

export interface LocalDrive {
  readonly server: AgentWireServer;
  readonly workstation: Workstation;
  close(): Promise<void>;
}

export interface LocalDriveOptions {
  readonly cairnHome: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the server half keeps its event log; in memory when absent. */
  readonly eventLogPath?: string;
  readonly extras?: Readonly<Record<string, LaunchExtras>>;
  readonly log?: (line: string) => void;
  readonly limits?: ConstructorParameters<typeof Workstation>[0]['limits'];
}

export async function startLocalDrive(options: LocalDriveOptions): Promise<LocalDrive> {
  const eventLog = new EventLog(options.eventLogPath ?? ':memory:');
  // No ticket opens this server: its one workstation is joined in process.
  const server = new AgentWireServer({
    log: eventLog,
    ticketOwner: () => undefined,
    ...(options.log ? { logLine: options.log } : {}),
  });
  const journal = Journal.open(join(options.cairnHome, 'journal.sqlite'));
  const workstation = new Workstation({
    cairnHome: options.cairnHome,
    journal,
    env: options.env,
    resolveLaunch: rosterLaunchResolver({
      cairnHome: options.cairnHome,
      storeErrors: markTurnErrorsOnNode,
      ...(options.extras ? { extras: options.extras } : {}),
    }),
    ...(options.log ? { log: options.log } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  linkInProcess(server, workstation, { as: LOCAL_WORKSTATION, reattach: true });
  await server.waitForWorkstation(LOCAL_WORKSTATION);
  return {
    server,
    workstation,
    close: async () => {
      server.close();
      await workstation.stop();
      journal.close();
      eventLog.shutdown();
    },
  };
}
