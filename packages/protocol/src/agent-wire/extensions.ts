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
