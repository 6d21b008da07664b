// What a chat session is given and what it speaks: the events it sends its tabs, the clock it
// schedules by, the parts of the daemon it drives, and the prompt a tab sends. Shared by the
// session and the parts it is made of (its queue, permissions, schedule and turn in flight).
import type { AgentWireServer } from '../drive/agent-wire-server.js';
import type { ChatStore, ImageRow } from './chat-store.js';
import type { HistoryLimits } from './history-frames.js';
import type { PermissionRuleStore } from './permission-rule-store.js';

export type Event = { type: string } & Record<string, unknown>;

export interface ChatSocket {
  send(event: Event): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The error code of an agent that wants the person to sign in first. */
export const AUTH_REQUIRED = -32000;

export interface ChatDeps {
  readonly store: ChatStore;
  readonly wire: AgentWireServer;
  readonly workstation: string;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** When a history goes in chunks rather than whole in `session_ready`; the defaults otherwise. */
  readonly historyLimits?: HistoryLimits;
  /** Permission rules remembered per project; without it every request goes to the page. */
  readonly rules?: PermissionRuleStore;
}

export interface UserMessage {
  content: string;
  images?: ImageRow[];
  loop?: boolean;
  loopMaxIterations?: number;
  loopGoal?: string;
  intervalMinutes?: number;
  loopControl?: 'run_now' | 'stop';
  /** Project files, relative to the session's folder, handed to the agent with the prompt. */
  files?: string[];
}
