// A turn's error read back from the agent's own session file, for the agents whose adapter drops it
// (a bridge's `errorsInStore`): the turn then ends failed with the provider's words, as it does for
// every other agent, instead of ending as if the agent had answered with nothing.
//
// The runner reads no agent's files itself: whoever builds it hands in the reader (the server's and
// the workstation command's come from cairn's transcript library).
import type { TurnOutcome } from './acp-session.js';

/**
 * Marks where the session's file ends before a turn, and resolves to the check that, once the turn
 * has ended, reads the error that the records written since end with (undefined if they end
 * otherwise). Only reads.
 */
export type StoreErrorReader = (session: {
  readonly env: Readonly<Record<string, string>>;
  /** The agent name the reader knows the store by. */
  readonly agent: string;
  readonly sessionId: string;
}) => Promise<() => Promise<string | undefined>>;

/** What a session's launch carries when its agent's errors are to be read back from its store. */
export interface StoreErrors {
  readonly agent: string;
  readonly read: StoreErrorReader;
}

/**
 * Called as a turn starts: what to do with its outcome once it ends. A completed turn whose records
 * end with an error becomes a failed one carrying it; anything else passes as it is. A reader that
 * fails loses no turn: the outcome stays the agent's.
 */
export async function storeErrorCheck(
  storeErrors: StoreErrors | undefined,
  env: Readonly<Record<string, string>>,
  sessionId: string | null,
  log?: (line: string) => void,
): Promise<(outcome: TurnOutcome) => Promise<TurnOutcome>> {
  const asItIs = async (outcome: TurnOutcome) => outcome;
  if (!storeErrors || sessionId === null) return asItIs;
  const failed = (cause: unknown) =>
    log?.(
      `workstation: the ${storeErrors.agent} session ${sessionId} could not be read back: ${String(cause)}`,
    );
  let check: () => Promise<string | undefined>;
  try {
    check = await storeErrors.read({ env, agent: storeErrors.agent, sessionId });
  } catch (cause) {
    failed(cause);
    return asItIs;
  }
  return async (outcome) => {
    if (outcome.status !== 'completed') return outcome;
    try {
      const error = await check();
      return error === undefined ? outcome : { status: 'failed', message: error };
    } catch (cause) {
      failed(cause);
      return outcome;
    }
  };
}
