// `cairn fork` through the agent's own fork: when the new session is of the source's agent and that
// agent takes a cut (Claude Code), the agent copies its own session up to the prompt forked from
// and the turn goes on in the copy, so the new session holds the real history rather than a
// document of it. When the agent or its workstation cannot, nothing has run and the caller hands
// the history off instead.
import type { SessionLink } from '@cairn/protocol';
import { agentForkCut, type SessionPlatform, type Transcript } from '@cairn/transcript';
import { sessionLinkWriter } from '../session-links.js';
import { runArgs, type TurnValues } from './handoff.js';

export interface AgentForkRequest {
  readonly t: Transcript;
  /** The source session as cairn names it (for Claude Code, the agent's own id too). */
  readonly sid: string;
  /** The bridge that drives the source's agent. */
  readonly bridge: string;
  readonly atItem: string;
  readonly cwd: string;
  readonly turn: TurnValues;
}

/**
 * Runs the first turn of the agent's own fork of the source, linking the two as soon as the fork
 * took its prompt. Answers the turn's exit code, or undefined when the fork could not be made
 * (said on stderr) and nothing ran.
 */
export async function forkThroughAgent(
  platform: SessionPlatform,
  request: AgentForkRequest,
): Promise<number | undefined> {
  const { t, sid, turn } = request;
  const cut = agentForkCut(t, request.atItem);
  if (!cut.ok) return undefined;
  // The prompt forked from is asked again in the copy, unless another one is given.
  const prompt = turn.prompt ?? cut.prompt;
  if (turn.json)
    process.stdout.write(
      `${JSON.stringify({
        event: 'fork',
        via: 'agent',
        from: { agent: t.agent, sid },
        to: t.agent,
        at_item: request.atItem,
        cut: cut.messageId,
        cwd: request.cwd,
      })}\n`,
    );
  else process.stderr.write(`forking through ${t.agent}'s own fork, before ${request.atItem}\n`);

  const keepLink = await sessionLinkWriter(platform);
  let refused: string | undefined;
  let linked = false;
  const { FORK_REFUSED, runCommand } = await import('./run.js');
  const code = await runCommand(platform, runArgs(request.bridge, request.cwd, turn, prompt), {
    fork: { nativeSessionId: sid, messageId: cut.messageId },
    onForkRefused: (reason) => {
      refused = reason;
    },
    onPrompted: (opened) => {
      if (!opened.nativeSessionId) return;
      const link: SessionLink = {
        kind: 'fork',
        from: { agent: t.agent, sid },
        to: { agent: t.agent, sid: opened.nativeSessionId },
        at_item: request.atItem,
        via: 'agent',
        created_at: Date.now(),
      };
      try {
        keepLink(link);
      } catch (error) {
        // The turn goes on: the fork is there, only its link could not be kept.
        process.stderr.write(`cairn fork: the link was not kept: ${(error as Error).message}\n`);
        return;
      }
      linked = true;
      if (turn.json) process.stdout.write(`${JSON.stringify({ event: 'link', link })}\n`);
      else
        process.stderr.write(
          `linked: ${link.to.agent} ${link.to.sid} carries on ${link.from.agent} ${link.from.sid}\n`,
        );
    },
  });
  if (code === FORK_REFUSED) {
    process.stderr.write(
      `cairn fork: ${t.agent} did not fork it itself (${oneLine(refused ?? 'no reason given')}); handing the history off instead\n`,
    );
    return undefined;
  }
  if (!linked && code === 0)
    process.stderr.write(`cairn fork: ${t.agent} named no session id; no link was kept\n`);
  return code;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);
