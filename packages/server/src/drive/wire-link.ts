// One connected workstation as this side knows it, and how frames go to it: fitted to the version it
// speaks and checked before they leave, and a request matched to its answer by id (or answered in
// the shape its answer has when the workstation cannot take it or never answers).
import {
  type AgentFrame,
  type BridgeInfo,
  encodeAgentFrame,
  fitAgentFrameToPeer,
  outboundAgentFrameRejection,
} from '@cairn/protocol';
import type { EventRate } from './wire-limits.js';

export interface WireChannel {
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

interface PendingRequest {
  resolve(frame: AgentFrame): void;
  timer: NodeJS.Timeout;
}

/** One connected workstation. */
export class Link {
  name: string | undefined;
  /** Set for a workstation in this process: it is this name without a ticket. */
  trustedName: string | undefined;
  /** The ticket it said hello with, checked again at each heartbeat so a revoked one is cut. */
  ticket: string | undefined;
  refused = 0;
  bridges: BridgeInfo[] = [];
  /** What the workstation says is wrong with its config.json. */
  rosterProblems: string[] = [];
  undecodable = 0;
  readonly pending = new Map<string, PendingRequest>();
  /** A frame's handling waits for the store: those received meanwhile wait in `backlog`. */
  waiting = false;
  readonly backlog: { frame: AgentFrame; bytes: number; events: number }[] = [];
  /** What waits in `backlog`, and the events taken in and not yet stored, with their bytes: the
   * queue the wire's limits bound. */
  backlogEvents = 0;
  backlogBytes = 0;
  unstoredEvents = 0;
  unstoredBytes = 0;
  /** The most events (and frames) that ever waited at once on this connection. */
  peakWaiting = 0;
  /** Its events a second, counted against its workstation's limit; the in-process one has none. */
  rate: EventRate | undefined;

  constructor(
    readonly channel: WireChannel,
    readonly version: number,
    private readonly logLine?: (line: string) => void,
  ) {}

  request(frame: AgentFrame & { id: string }, timeoutMs: number): Promise<AgentFrame> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(frame.id);
        resolve(
          timeoutReply(frame, `no answer from the workstation within ${Math.round(timeoutMs / 1000)} s`),
        );
      }, timeoutMs);
      this.pending.set(frame.id, { resolve, timer });
      if (!this.send(frame)) {
        clearTimeout(timer);
        this.pending.delete(frame.id);
        resolve(timeoutReply(frame, `this workstation (agent wire v${this.version}) cannot take ${frame.t}`));
      }
    });
  }

  /** Fitted to the workstation's version and checked; false when the frame could not go. */
  send(frame: AgentFrame): boolean {
    const fitted = fitAgentFrameToPeer(frame, this.version);
    if (!fitted.ok) {
      this.logLine?.(`agent wire: not sent: ${fitted.reason}`);
      return false;
    }
    const rejection = outboundAgentFrameRejection(fitted.frame);
    if (rejection !== null) {
      this.logLine?.(`agent wire: refused to send a malformed ${frame.t}: ${rejection}`);
      return false;
    }
    this.channel.send(encodeAgentFrame(fitted.frame));
    return true;
  }

  /** An answer to one of this side's requests, matched by its id. */
  resolvePending(frame: AgentFrame): void {
    const id = (frame as { id?: unknown }).id;
    if (typeof id === 'string') {
      const pending = this.pending.get(id);
      if (pending) {
        this.pending.delete(id);
        clearTimeout(pending.timer);
        pending.resolve(frame);
        return;
      }
    }
    if (frame.t === 'agent_backfill_done' || frame.t === 'agent_opened') return;
    this.logLine?.(`agent wire: unexpected ${frame.t}`);
  }
}

/** The reply a request gets when the workstation never answers, in the shape its answer has. */
function timeoutReply(frame: AgentFrame & { id: string }, error: string): AgentFrame {
  const { id } = frame;
  switch (frame.t) {
    case 'agent_open':
      return { t: 'agent_opened', id, ok: false, error };
    case 'agent_steer':
      return { t: 'agent_steered', id, ok: false, error };
    case 'agent_set_config_option':
      return { t: 'agent_config_option_set', id, ok: false, error };
    case 'agent_verify':
      return { t: 'agent_verified', id, ok: false, error };
    case 'agent_authenticate':
      return { t: 'agent_authenticated', id, ok: false, error };
    case 'agent_install':
      return { t: 'agent_installed', id, ok: false, error };
    case 'agent_list_native':
      return { t: 'agent_native_sessions', id, ok: false, error };
    default:
      return { t: 'agent_opened', id, ok: false, error };
  }
}
