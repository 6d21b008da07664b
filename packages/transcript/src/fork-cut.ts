// Where an agent's own fork of a session is cut so that it holds the history up to a prompt. Only
// Claude Code takes a cut (its adapter's `session/fork` keeps the source's records through one
// model message), so this is the last model message before the prompt; for any other agent, or an
// item that is not a prompt, there is no cut and the history is handed off instead.
import type { Transcript, TranscriptEventOf } from './model.js';

export type ForkCut =
  | {
      readonly ok: true;
      /** The model's id of the last message the fork keeps. */
      readonly messageId: string;
      /** The prompt forked from: the new session has everything before it, and not it. */
      readonly prompt: string;
    }
  | { readonly ok: false; readonly reason: string };

/** The agents whose own fork takes a cut at a model message. */
const CUT_AGENTS = new Set(['claude-code']);

/**
 * The cut for a fork of `t` from the prompt `atItem` (an item's uuid): the last model message of
 * the main lane before that prompt. Not a cut: another agent, an item of a subagent or not a
 * prompt, and the first prompt (nothing comes before it).
 */
export function agentForkCut(t: Transcript, atItem: string): ForkCut {
  if (!CUT_AGENTS.has(t.agent)) return { ok: false, reason: `${t.agent}'s own fork takes no cut` };
  const main = t.agents.find((lane) => lane.parentId === undefined)?.id;
  const at = t.events.find((e) => e.id === atItem);
  if (!at) return { ok: false, reason: `no item '${atItem}'` };
  if (at.agentId !== main) return { ok: false, reason: `'${atItem}' is in a subagent's lane` };
  const prompt = at.kind === 'user' ? (at as TranscriptEventOf<'user'>).payload : undefined;
  if (!prompt || prompt.synthetic === true) return { ok: false, reason: `'${atItem}' is not a prompt` };
  let last: string | undefined;
  for (const e of t.events) {
    if (e.seq >= at.seq || e.kind !== 'request' || e.agentId !== main) continue;
    const id = (e as TranscriptEventOf<'request'>).payload.messageId;
    if (typeof id === 'string' && id !== '') last = id;
  }
  if (last === undefined) return { ok: false, reason: `no model message comes before '${atItem}'` };
  return { ok: true, messageId: last, prompt: prompt.text };
}
