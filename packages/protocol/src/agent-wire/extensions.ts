// cairn's own uses of the agent wire, inside frames the wire already has, so that any v14 peer can
// still carry them: one that does not know them refuses them like any unknown option.

/**
 * The wire has no frame to end a dev process (a command the agent ran in a terminal), so the server
 * asks for it with `agent_set_config_option` under this reserved id (a `_` name, as ACP keeps for
 * extensions) and the process id as the value. A cairn workstation answers it itself and never
 * passes it to the agent.
 */
export const KILL_DEV_PROCESS_OPTION = '_cairn/kill_dev_process';

/** Event names a cairn workstation journals for the commands an agent runs through the ACP
 * terminal capability: a process started, exited or was killed; and its output, coalesced. */
export const DEV_PROCESS_EVENT = 'dev_process';
export const DEV_PROCESS_OUTPUT_EVENT = 'dev_process_output';

/** How much of the end of a dev process's output its summary carries (characters). */
export const DEV_PROCESS_TAIL = 4 * 1024;

/** The largest agent wire frame a cairn server accepts (a WebSocket message; it closes with 1009
 * past it). A workstation keeps every frame, backfill batches included, under it. */
export const AGENT_FRAME_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The largest event payload a cairn workstation journals and sends, as JSON. A larger one is cut
 * to fit (its longest strings shortened) and carries {@link EVENT_CUT_MARKER}. Well under the frame
 * limit, so an event always fits in a frame with room to spare.
 */
export const AGENT_EVENT_MAX_BYTES = 4 * 1024 * 1024;

/** The payload key of an event cut to {@link AGENT_EVENT_MAX_BYTES}: `{ originalBytes, limitBytes }`. */
export const EVENT_CUT_MARKER = '_cairn/cut';

export interface EventCut {
  /** The payload's size as JSON before it was cut. */
  readonly originalBytes: number;
  readonly limitBytes: number;
}
