// Background processes on the machine: the ones an agent started (tracked) and any listening server
// a port scan finds.
import { type Static, Type } from '@sinclair/typebox';
import { Count, Instant, literals, NullableString, WireId } from './fields.js';

/** `recovered`: a process found again after the server restarted, no longer its child. */
export const DevProcessStatus = literals(['running', 'exited', 'killed', 'recovered'], {
  $id: 'DevProcessStatus',
});
export type DevProcessStatus = Static<typeof DevProcessStatus>;

const Port = Type.Number();

export const DevProcessSummary = Type.Object(
  {
    id: WireId,
    /** The definition it was started from, where definitions exist. */
    definitionId: Type.Optional(Type.String()),
    /** For people. */
    label: Type.String(),
    command: Type.String(),
    cwd: Type.String(),
    status: DevProcessStatus,
    pid: Type.Optional(Count),
    /** The TCP ports it listens on now. */
    ports: Type.Optional(Type.Array(Port)),
    startedAt: Instant,
    endedAt: Type.Optional(Instant),
    exitCode: Type.Union([Type.Number(), Type.Null()]),
    /** The end of its output, bounded. */
    lastOutputTail: Type.String(),
    /** Where the whole output is kept. */
    fullOutputPath: Type.String(),
  },
  { $id: 'DevProcessSummary' },
);
export type DevProcessSummary = Static<typeof DevProcessSummary>;

/** A listening server found by a scan, whoever started it. The project is set only when the process's
 * folder is a known project's. */
export const DetectedDevServer = Type.Object(
  {
    id: WireId,
    pid: Type.Union([Count, Type.Null()]),
    port: Port,
    address: Type.String(),
    process: NullableString,
    cwd: NullableString,
    projectId: NullableString,
    projectName: NullableString,
  },
  { $id: 'DetectedDevServer' },
);
export type DetectedDevServer = Static<typeof DetectedDevServer>;
