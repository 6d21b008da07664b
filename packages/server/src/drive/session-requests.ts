// What the daemon asks of a session on its workstation: opening it (as the agent's own fork when
// asked, told apart from a plain new session by cairn's keys on the answer), its prompts, answers,
// steers and config values, interrupting and closing it. Each goes to the workstation the event
// log says the session runs on.
import { randomUUID } from 'node:crypto';
import {
  type AgentFrame,
  type AgentFrameOf,
  FORK_OPEN_KEY,
  FORK_UNSUPPORTED_KEY,
  FORKED_KEY,
  PROMPT_RESOURCES_KEY,
  type PromptResource,
} from '@cairn/protocol';
import type { AgentWireServer, OpenedFork, WireContext } from './agent-wire-server.js';
import type { SessionAuthority } from './session-authority.js';
import type { Link } from './wire-link.js';

type Reply<T extends AgentFrame['t']> = AgentFrameOf<T>;

/** What `AgentWireServer.open` is asked. */
type OpenRequest = Parameters<AgentWireServer['open']>[0];

export class SessionRequests {
  constructor(
    private readonly options: WireContext,
    /** The connected workstations by name, as the server keeps them. */
    private readonly byName: ReadonlyMap<string, Link>,
    private readonly authority: SessionAuthority,
  ) {}

  /** Opens a session on its workstation, as the agent's own fork when the request asks for one. */
  async open(request: OpenRequest): Promise<Reply<'agent_opened'> & OpenedFork & { sessionRef: string }> {
    const sessionRef = request.sessionRef ?? randomUUID();
    const link = this.byName.get(request.workstation);
    const id = randomUUID();
    if (!link)
      return {
        t: 'agent_opened',
        id,
        ok: false,
        error: `workstation ${request.workstation} is not connected`,
        sessionRef,
      };
    // The record is written while the open goes out; the session's events wait for it.
    const recorded = this.options.drive.upsert({
      sessionRef,
      workstation: request.workstation,
      agentKey: request.agentKey,
      bridge: request.bridge,
      cwd: request.cwd,
      nativeSessionId: request.nativeSessionId ?? null,
    });
    this.authority.opened(
      sessionRef,
      {
        workstation: request.workstation,
        agentKey: request.agentKey,
        bridge: request.bridge,
        cwd: request.cwd,
      },
      recorded,
    );
    const frame: AgentFrameOf<'agent_open'> = {
      t: 'agent_open',
      id,
      sessionRef,
      agentKey: request.agentKey,
      bridge: request.bridge,
      cwd: request.cwd,
      shell: process.env.SHELL ?? '/bin/sh',
      ...(request.nativeSessionId ? { nativeSessionId: request.nativeSessionId } : {}),
      ...(request.env ? { env: request.env } : {}),
      ...(request.agentEnv ? { agentEnv: request.agentEnv } : {}),
      ...(request.pathPrepend ? { pathPrepend: request.pathPrepend } : {}),
      // Under cairn's key: a peer that does not know it opens a plain session, told apart below.
      ...(request.fork ? { [FORK_OPEN_KEY]: request.fork } : {}),
    };
    const replied = link.request(frame, 120_000);
    try {
      await recorded;
    } catch (error) {
      this.closeSession(sessionRef);
      await replied;
      return {
        t: 'agent_opened',
        id,
        ok: false,
        error: `cannot record the session: ${(error as Error).message}`,
        sessionRef,
      };
    }
    const reply = (await replied) as Reply<'agent_opened'>;
    const said = reply as unknown as Record<string, unknown>;
    if (request.fork && reply.ok && said[FORKED_KEY] !== true) {
      // A plain new session is not the fork asked for: it goes, and the caller takes another way.
      this.closeSession(sessionRef);
      return {
        ...reply,
        ok: false,
        error: `workstation ${request.workstation} does not make agents' own forks`,
        forkUnsupported: true,
        sessionRef,
      };
    }
    if (reply.ok && reply.nativeSessionId)
      await this.options.drive.setNativeSessionId(sessionRef, reply.nativeSessionId);
    return {
      ...reply,
      ...(said[FORKED_KEY] === true ? { forked: true } : {}),
      ...(said[FORK_UNSUPPORTED_KEY] === true ? { forkUnsupported: true } : {}),
      sessionRef,
    };
  }

  /** Sends a prompt; the turn's events and its `agent_turn_done` arrive through `subscribe`. */
  prompt(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_prompt'>['images'],
    resources: readonly PromptResource[] = [],
  ): { ok: true } | { ok: false; error: string } {
    const link = this.linkOf(sessionRef);
    if (!link) return { ok: false, error: 'the workstation of this session is not connected' };
    this.authority.prompted(sessionRef);
    this.write(sessionRef, 'mark its turn running', this.options.drive.setTurnRunning(sessionRef, true));
    // Files ride under cairn's own key: a peer that does not know it sends the prompt without them.
    const files: Record<string, unknown> = resources.length > 0 ? { [PROMPT_RESOURCES_KEY]: resources } : {};
    link.send({
      t: 'agent_prompt',
      sessionRef,
      text,
      ...(images && images.length > 0 ? { images } : {}),
      ...files,
    });
    return { ok: true };
  }

  interrupt(sessionRef: string): void {
    const link = this.linkOf(sessionRef);
    if (link) link.send({ t: 'agent_interrupt', sessionRef });
  }

  answer(sessionRef: string, requestId: string, outcome: string): void {
    const link = this.linkOf(sessionRef);
    if (link) link.send({ t: 'agent_answer', sessionRef, requestId, outcome });
  }

  closeSession(sessionRef: string): void {
    const link = this.linkOf(sessionRef);
    if (link) link.send({ t: 'agent_close', sessionRef });
    this.write(sessionRef, 'close it', this.options.drive.close(sessionRef));
  }

  async steer(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_steer'>['images'],
    priority?: string,
  ): Promise<Reply<'agent_steered'>> {
    const link = await this.connectedLinkOf(sessionRef);
    const id = randomUUID();
    if (!link)
      return { t: 'agent_steered', id, ok: false, error: 'the workstation of this session is not connected' };
    const frame: AgentFrameOf<'agent_steer'> = {
      t: 'agent_steer',
      id,
      sessionRef,
      text,
      ...(images && images.length > 0 ? { images } : {}),
      ...(priority === undefined ? {} : { priority }),
    };
    return (await link.request(frame, 30_000)) as Reply<'agent_steered'>;
  }

  async setConfigOption(
    sessionRef: string,
    configId: string,
    value: string | boolean,
  ): Promise<Reply<'agent_config_option_set'>> {
    const link = await this.connectedLinkOf(sessionRef);
    const id = randomUUID();
    if (!link)
      return {
        t: 'agent_config_option_set',
        id,
        ok: false,
        error: 'the workstation of this session is not connected',
      };
    return (await link.request(
      { t: 'agent_set_config_option', id, sessionRef, configId, value },
      30_000,
    )) as Reply<'agent_config_option_set'>;
  }

  /** The connection of the session's workstation, for what goes out at once (a prompt, an answer). */
  private linkOf(sessionRef: string): Link | undefined {
    const owner = this.authority.ownerOf(sessionRef);
    return owner === null ? undefined : this.byName.get(owner);
  }

  /** The same, asking the store when this process has not met the session yet. */
  private async connectedLinkOf(sessionRef: string): Promise<Link | undefined> {
    await this.authority.lookUp(this.authority.unknown([sessionRef]));
    return this.linkOf(sessionRef);
  }

  /** A record's change that nothing waits for; a failure is logged. */
  private write(sessionRef: string, what: string, written: Promise<void>): void {
    written.catch((error) =>
      this.options.logLine?.(
        `agent wire: cannot ${what} (session ${sessionRef}): ${(error as Error).message}`,
      ),
    );
  }
}
