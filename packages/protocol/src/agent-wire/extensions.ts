// cairn's own uses of the agent wire, inside frames the wire already has, so that any v14 peer can
// still carry them: one that does not know them refuses them like any unknown option.
import { type Guard, objectOf, string } from './guards.js';

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

/**
 * A cairn workstation says `agent_hello` again on a channel already up when its roster changed (an
 * adapter installed, `config.json` edited): a cairn server takes it as the new roster and answers
 * nothing. Beside `bridges` it may carry this key: what is wrong with `config.json` (messages), so
 * the server can say why a declared agent is missing. When the file cannot be read as a whole,
 * the roster stays the last good one.
 */
export const ROSTER_PROBLEMS_KEY = '_cairn/rosterProblems';

/**
 * A cairn server puts this key, true, on `agent_ready` when it wants to hear an install's progress.
 * The workstation then sends `agent_installed` frames carrying {@link INSTALL_PROGRESS_KEY} before
 * the final answer; those are progress, not the answer. A server without the key gets only the
 * answer.
 */
export const INSTALL_PROGRESS_READY_KEY = '_cairn/installProgress';

/** The progress of an install in an `agent_installed` frame that is not the final answer. */
export const INSTALL_PROGRESS_KEY = '_cairn/installProgress';

export interface InstallProgress {
  /** `preparing`, `downloading` (npm runs), `checking`, or `done`. */
  readonly phase: 'preparing' | 'downloading' | 'checking' | 'done';
  /** npm's latest output line, when there is one. */
  readonly line?: string;
}

/** cairn's key in an `agent_authenticate` query: an API key for the workstation to keep for the
 * agent (in its own state, handed to the agent as the variable it reads), instead of asking the
 * agent to sign in. The answer never carries the key. */
export const API_KEY_QUERY = '_cairn/apiKey';

/**
 * cairn's key on `agent_prompt`: project files to hand the agent with the prompt, each as an
 * absolute `file://` URI and the name the user saw. The workstation sends each as an ACP
 * `resource` with the file's text when the agent takes embedded context (and the file is text and
 * small), else as a `resource_link`; one outside the session's folder is dropped.
 */
export const PROMPT_RESOURCES_KEY = '_cairn/resources';

export interface PromptResource {
  readonly uri: string;
  readonly name: string;
}

/**
 * cairn's key on `agent_open`: open the new session as the agent's own fork of a session it keeps
 * (ACP `session/fork`), holding that session's history up to a cut. Under cairn's key rather than
 * a frame field, so a peer that does not know it opens a plain new session; the answer then lacks
 * {@link FORKED_KEY}, which is how the server tells the two apart (and closes that session).
 */
export const FORK_OPEN_KEY = '_cairn/fork';

/** What {@link FORK_OPEN_KEY} carries. */
export interface ForkOpen {
  /** The agent's own id of the session to fork. */
  readonly nativeSessionId: string;
  /**
   * The last message the fork keeps, as the agent names it (Claude Code: the model's message id of
   * an assistant message). Absent: the whole session is copied.
   */
  readonly messageId?: string;
}

const nonEmptyString: Guard<string> = {
  ...string,
  check: (value) => string.check(value) ?? (value === '' ? { path: '', problem: 'must not be empty' } : null),
};

/** The shape of {@link ForkOpen}; keys it does not name are ignored, as everywhere on the wire. */
export const FORK_OPEN_GUARD = objectOf(
  'a fork of a native session',
  { nativeSessionId: nonEmptyString },
  { messageId: nonEmptyString },
);

/** cairn's key on an `agent_opened` that answers {@link FORK_OPEN_KEY}: `true`, the session is the fork. */
export const FORKED_KEY = '_cairn/forked';

/**
 * cairn's key on a refused `agent_opened` that answers {@link FORK_OPEN_KEY}: `true` when the agent
 * offers no fork (or none at a cut), so the caller can hand the history off instead; absent on
 * any other refusal.
 */
export const FORK_UNSUPPORTED_KEY = '_cairn/forkUnsupported';
