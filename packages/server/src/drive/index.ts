// The drive side of `cairn serve`: the agent wire's server half with its event log in the server's
// store, the `/agent` endpoint for workstations, and the local workstation.
import { join } from 'node:path';
import { Journal, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { markTurnErrorsOnNode } from '@cairn/transcript';
import type { DriveLogRecords } from '../storage/server-store.js';
import { AgentEndpoint } from './agent-endpoint.js';
import { AgentWireServer } from './agent-wire-server.js';
import { LOCAL_WORKSTATION } from './local-drive.js';
import { linkInProcess } from './local-link.js';
import { storedTicketOwner } from './tickets.js';
import type { WireLimits } from './wire-limits.js';

export { AGENT_PATH } from './agent-endpoint.js';
export { LOCAL_WORKSTATION } from './local-drive.js';
export { DEFAULT_WIRE_LIMITS, type WireLimits } from './wire-limits.js';

export interface Drive {
  readonly wire: AgentWireServer;
  readonly endpoint: AgentEndpoint;
  /** The workstation a ticket belongs to: a machine's one credential, for the agent wire and for sync. */
  readonly ticketOwner: (ticket: string) => string | undefined;
  /** The workstation inside the server process, when it runs one. */
  readonly local?: Workstation;
  close(): Promise<void>;
}

export function startDrive(options: {
  cairnHome: string;
  /** The store's driven sessions and their events; the store is closed by its owner. */
  drive: DriveLogRecords;
  env: Readonly<Record<string, string | undefined>>;
  log: (line: string) => void;
  localWorkstation: boolean;
  /** Whose a ticket is; the tickets under `$CAIRN_HOME` when absent. */
  ticketOwner?: (ticket: string) => string | undefined;
  /** What the agent wire takes from workstations; the defaults when absent. */
  limits?: Partial<WireLimits>;
}): Drive {
  // Only other machines' workstations have tickets; the local one is joined in process.
  const ticketOwner =
    options.ticketOwner ?? ((ticket: string) => storedTicketOwner(options.cairnHome, ticket));
  const wire = new AgentWireServer({
    log: options.drive,
    ticketOwner,
    logLine: options.log,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const endpoint = new AgentEndpoint(wire, ticketOwner);
  let local: Workstation | undefined;
  let journal: Journal | undefined;
  if (options.localWorkstation) {
    journal = Journal.open(join(options.cairnHome, 'journal.sqlite'));
    local = new Workstation({
      cairnHome: options.cairnHome,
      journal,
      env: options.env,
      resolveLaunch: rosterLaunchResolver({
        cairnHome: options.cairnHome,
        storeErrors: markTurnErrorsOnNode,
      }),
      log: options.log,
      watchConfig: true,
    });
    linkInProcess(wire, local, { as: LOCAL_WORKSTATION, reattach: true });
  }
  return {
    wire,
    endpoint,
    ticketOwner,
    ...(local ? { local } : {}),
    close: async () => {
      endpoint.close();
      wire.close();
      await local?.stop();
      journal?.close();
    },
  };
}
