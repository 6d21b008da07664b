// A chat session as the page holds it, and the pure function that moves it on by one server frame.
// `session_ready` rebuilds everything (history, then the in-flight turn's events replayed), so a
// reconnect or a reload shows each delta exactly once: nothing survives from before it, and what
// follows it is new. The run state is the server's; the page never derives it.
import type { AppliedPermissionRule } from '@cairn/protocol';
import type {
  ChatCommand,
  DevProcess,
  ImageAttachment,
  PermissionRequest,
  QueueItem,
  ServerEvent,
  SessionConfigOption,
  SignIn,
  WireMessage,
  WireRunState,
} from './wire.js';

export type { DevProcess };

export type Part =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'thinking'; readonly text: string; readonly open: boolean }
  | {
      readonly kind: 'tool';
      readonly id: string;
      readonly name: string;
      readonly args: unknown;
      readonly result?: unknown;
      readonly isError?: boolean;
      readonly done: boolean;
    };

export interface MessageUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly ttftMs?: number | null;
  readonly durationMs?: number | null;
  readonly tokensPerSecond?: number | null;
}

export interface AssistantEntry {
  readonly kind: 'assistant';
  readonly id: string;
  readonly parts: readonly Part[];
  readonly streaming: boolean;
  readonly stopReason?: string;
  readonly errorMessage?: string;
  readonly usage?: MessageUsage;
}

export interface UserEntry {
  readonly kind: 'user';
  readonly id: string;
  readonly content: string;
  readonly images: readonly ImageAttachment[];
}

export interface NoticeEntry {
  readonly kind: 'notice';
  readonly id: string;
  readonly level: 'error' | 'info';
  readonly text: string;
}

export type Entry = AssistantEntry | UserEntry | NoticeEntry;

export interface PermissionCard extends PermissionRequest {
  /** Set once an answer won (here or in another tab), or the request ended without one. */
  readonly settled?: { readonly optionId: string; readonly by?: string };
  /** The permission rule that answered it without a card; shown as a line. */
  readonly rule?: AppliedPermissionRule;
}

export interface LoopStatus {
  readonly iteration: number;
  readonly maxIterations: number;
  /** How it ended: the agent said it was done, the cap was reached, or the person stopped it. */
  readonly ended?: 'done' | 'max' | 'stopped';
}

export interface IntervalStatus {
  readonly active: boolean;
  readonly minutes: number | null;
  readonly nextTickAt: number | null;
  readonly launches: number;
  readonly lastSkipped?: boolean;
}

export interface ChatState {
  readonly sessionId: string | null;
  /** A `session_ready` has arrived on the current socket. */
  readonly ready: boolean;
  readonly entries: readonly Entry[];
  readonly runState: WireRunState | null;
  readonly queue: readonly QueueItem[];
  readonly permissions: readonly PermissionCard[];
  readonly signIn: SignIn | null;
  readonly configOptions: readonly SessionConfigOption[];
  readonly supportsSteering: boolean;
  readonly supportsImageInput: boolean;
  readonly contextWindowUsed: number | null;
  readonly contextWindowMax: number | null;
  readonly agent: string | null;
  readonly title: string | null;
  readonly steer: { readonly ok: boolean; readonly outcome?: string; readonly error?: string } | null;
  readonly loop: LoopStatus | null;
  readonly interval: IntervalStatus | null;
  /** The commands the agent ran in terminals, in the order they started. */
  readonly devProcesses: readonly DevProcess[];
  /** The slash commands the agent announced, for the composer's `/`. */
  readonly availableCommands: readonly ChatCommand[];
  /** Counts notices so each has an id of its own. */
  readonly notices: number;
}

export const initialChatState = (sessionId: string | null = null): ChatState => ({
  sessionId,
  ready: false,
  entries: [],
  runState: null,
  queue: [],
  permissions: [],
  signIn: null,
  configOptions: [],
  supportsSteering: false,
  supportsImageInput: false,
  contextWindowUsed: null,
  contextWindowMax: null,
  agent: null,
  title: null,
  steer: null,
  loop: null,
  interval: null,
  devProcesses: [],
  availableCommands: [],
  notices: 0,
});

/** The socket went away: what is shown stays until the next `session_ready` replaces it. */
export const disconnected = (state: ChatState): ChatState => ({ ...state, ready: false });

export const isBusy = (state: ChatState): boolean => state.runState?.busy === true;

type Event = ServerEvent;

export function reduceChat(state: ChatState, event: Event): ChatState {
  switch (event.type) {
    case 'session_ready':
      return sessionReady(state, event);
    case 'user_message_appended': {
      const m = event.message;
      if (state.entries.some((e) => e.kind === 'user' && e.id === m.id)) return state;
      // A new prompt is a new try: a sign-in card of the last one has had its say.
      return { ...state, signIn: null, entries: [...state.entries, userEntry(m)] };
    }
    case 'message_start':
    case 'text_delta':
    case 'thinking_start':
    case 'thinking_delta':
    case 'thinking_end':
    case 'tool_call':
    case 'tool_result':
    case 'message_end':
    case 'token_usage': {
      const next = turnEvent(state, event);
      if (event.type === 'token_usage') {
        return {
          ...next,
          contextWindowUsed: event.contextWindowUsed ?? next.contextWindowUsed,
          contextWindowMax: event.contextWindowMax ?? next.contextWindowMax,
        };
      }
      return next;
    }
    case 'agent_end':
      if (event.willRetry) return state;
      return { ...state, entries: state.entries.map((e) => (e.kind === 'assistant' ? finish(e) : e)) };
    case 'run_state': {
      const current = state.runState;
      // Frames of an older run can arrive after a newer one's: the generation says which is which.
      if (current && event.runState.generation < current.generation) return state;
      // A new run starts with no word on the last one's steering.
      const newRun = current !== null && event.runState.generation > current.generation;
      // A loop the server no longer runs, with no word of its end, was stopped (Stop says nothing else).
      const loop =
        state.loop && state.loop.ended === undefined && !event.runState.flags.looping
          ? { ...state.loop, ended: 'stopped' as const }
          : state.loop;
      return { ...state, runState: event.runState, loop, ...(newRun ? { steer: null } : {}) };
    }
    case 'queue_changed':
      return { ...state, queue: [...event.queue].sort((a, b) => a.position - b.position) };
    case 'session_renamed':
      return { ...state, title: event.title };
    case 'error':
      if (state.signIn?.message === event.message) return state;
      return notice(state, 'error', event.message);
    case 'agent_notification':
      // A passing word, such as the agent starting; the next session_ready, built from the history,
      // leaves it out.
      return notice(state, event.level === 'info' ? 'info' : 'error', event.message);
    case 'permission_request': {
      if (state.permissions.some((p) => p.requestId === event.requestId)) return state;
      const { type: _t, ...request } = event;
      return { ...withPermissionTool(state, request), permissions: [...state.permissions, request] };
    }
    case 'permission_rule_applied': {
      if (state.permissions.some((p) => p.requestId === event.requestId)) return state;
      const card: PermissionCard = {
        requestId: event.requestId,
        toolCall: event.toolCall,
        options: [],
        settled: { optionId: event.optionId, by: 'answer' },
        rule: event.applied,
      };
      return { ...state, permissions: [...state.permissions, card] };
    }
    case 'permission_settled': {
      if (!state.permissions.some((p) => p.requestId === event.requestId)) return state;
      const settled =
        event.by === undefined ? { optionId: event.optionId } : { optionId: event.optionId, by: event.by };
      return {
        ...state,
        permissions: state.permissions.map((p) => (p.requestId === event.requestId ? { ...p, settled } : p)),
      };
    }
    case 'sign_in_required': {
      const { type: _t, ...signIn } = event;
      // The card says it: the same words as a notice beside it would only repeat them.
      const entries = state.entries.filter((e) => !(e.kind === 'notice' && e.text === signIn.message));
      return { ...state, entries, signIn };
    }
    case 'sign_in_result':
      // Signed in (or the key kept): the card gives way to a word saying so. A failure is said on
      // the card, which stays for another try.
      if (event.ok) return notice({ ...state, signIn: null }, 'info', event.message);
      return state.signIn
        ? { ...state, signIn: { ...state.signIn, failure: event.message } }
        : notice(state, 'error', event.message);
    case 'config_options':
      return { ...state, configOptions: event.configOptions };
    case 'available_commands':
      return { ...state, availableCommands: event.commands };
    case 'dev_processes_changed': {
      const process = event.process;
      if (!process) return state;
      const known = state.devProcesses.some((p) => p.id === process.id);
      return {
        ...state,
        devProcesses: known
          ? state.devProcesses.map((p) => (p.id === process.id ? process : p))
          : [...state.devProcesses, process],
      };
    }
    case 'dev_process_output':
      return {
        ...state,
        devProcesses: state.devProcesses.map((p) =>
          p.id === event.processId ? { ...p, lastOutputTail: event.tail } : p,
        ),
      };
    case 'steer_result': {
      const steer = { ok: event.ok, outcome: event.outcome, error: event.error };
      const next = { ...state, steer };
      return event.ok ? next : notice(next, 'error', `Steering failed: ${event.error ?? 'no reason given'}`);
    }
    case 'loop_iteration':
      return { ...state, loop: { iteration: event.iteration, maxIterations: event.maxIterations } };
    case 'loop_complete':
      return {
        ...state,
        loop: {
          iteration: event.iterations,
          maxIterations: state.loop?.maxIterations ?? event.iterations,
          ended: 'done',
        },
      };
    case 'loop_max_iterations':
      return {
        ...state,
        loop: { iteration: event.iterations, maxIterations: event.iterations, ended: 'max' },
      };
    case 'interval_armed':
      return {
        ...state,
        interval: {
          active: true,
          minutes: event.intervalMinutes,
          nextTickAt: null,
          launches: state.interval?.launches ?? 0,
        },
      };
    case 'interval_launched':
      return {
        ...state,
        interval: { ...intervalOf(state), active: true, launches: event.occurrence, lastSkipped: false },
      };
    case 'interval_skipped':
      return { ...state, interval: { ...intervalOf(state), lastSkipped: true } };
    case 'interval_stopped':
      return { ...state, interval: { ...intervalOf(state), active: false, nextTickAt: null } };
    default:
      return state;
  }
}

const intervalOf = (state: ChatState): IntervalStatus =>
  state.interval ?? { active: false, minutes: null, nextTickAt: null, launches: 0 };

function notice(state: ChatState, level: 'error' | 'info', text: string): ChatState {
  const n = state.notices + 1;
  return {
    ...state,
    notices: n,
    entries: [...state.entries, { kind: 'notice', id: `notice-${n}`, level, text }],
  };
}

function sessionReady(state: ChatState, e: Extract<Event, { type: 'session_ready' }>): ChatState {
  let next: ChatState = {
    ...initialChatState(e.sessionId),
    ready: true,
    entries: historyEntries(e.history),
    runState: e.runState ?? null,
    queue: [...(e.queue ?? [])].sort((a, b) => a.position - b.position),
    // The settled ones first, as they were answered, then those still open.
    permissions: [
      ...(e.settledPermissions ?? []).map((s): PermissionCard => {
        const { type: _t, ...request } = s.request as PermissionRequest & { type?: string };
        const settled = s.by === undefined ? { optionId: s.optionId } : { optionId: s.optionId, by: s.by };
        return { ...request, settled, ...(s.rule ? { rule: s.rule } : {}) };
      }),
      ...(e.pendingPermissions ?? []),
    ],
    signIn: e.signIn ?? null,
    devProcesses: [...(e.devProcesses ?? [])],
    availableCommands: e.availableCommands ?? [],
    configOptions: e.configOptions ?? [],
    supportsSteering: e.supportsSteering === true,
    supportsImageInput: e.supportsImageInput === true,
    contextWindowUsed: e.contextWindowUsed ?? null,
    contextWindowMax: e.contextWindowMax ?? null,
    agent: e.agent ?? null,
    // A title the page learnt from `session_renamed` stays until the server names another.
    title: e.title ?? (state.sessionId === e.sessionId ? state.title : null),
    interval:
      e.intervalActive === true
        ? {
            active: true,
            minutes: e.intervalMinutes ?? null,
            nextTickAt: e.intervalNextTickAt ?? null,
            launches: e.intervalLaunchCount ?? 0,
          }
        : null,
  };
  for (const ev of e.currentTurn?.events ?? []) next = reduceChat(next, ev);
  return next;
}

function historyEntries(history: readonly WireMessage[]): Entry[] {
  const sorted = [...history].sort(
    (a, b) => (a.sequence ?? 0) - (b.sequence ?? 0) || a.createdAt - b.createdAt,
  );
  const out: Entry[] = [];
  for (const m of sorted) {
    if (m.role === 'user') out.push(userEntry(m));
    else if (m.role === 'assistant') out.push(assistantFromHistory(m, out));
    else out.push({ kind: 'notice', id: m.id, level: 'info', text: m.content });
  }
  return out;
}

const userEntry = (m: WireMessage): UserEntry => ({
  kind: 'user',
  id: m.id,
  content: m.content,
  images: m.images ?? [],
});

/** The events of a stored turn, one JSON object a line; a line that does not parse is left out. */
export function parseEvents(ndjson: string): Event[] {
  const out: Event[] = [];
  for (const line of ndjson.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string') {
        out.push(v as Event);
      }
    } catch {
      // A torn line holds nothing to show.
    }
  }
  return out;
}

/** A stored message; `before` are the entries drawn above it, which a result may belong to. */
function assistantFromHistory(m: WireMessage, before: Entry[]): AssistantEntry {
  let entry: AssistantEntry = { kind: 'assistant', id: m.id, parts: [], streaming: false };
  for (const ev of parseEvents(m.events)) {
    if (ev.type === 'message_start') continue;
    // A steer splits a turn while a call runs: its result comes in the part after the steer, and
    // belongs to the call drawn above it.
    if (ev.type === 'tool_result' && !entry.parts.some((p) => p.kind === 'tool' && p.id === ev.id)) {
      const owner = findToolOwner(before, ev.id);
      if (owner !== -1) {
        before[owner] = applyToMessage(before[owner] as AssistantEntry, ev);
        continue;
      }
    }
    entry = applyToMessage(entry, ev);
  }
  if (!entry.parts.some((p) => p.kind === 'text') && m.content !== '') {
    entry = { ...entry, parts: [...entry.parts, { kind: 'text', text: m.content }] };
  }
  const stored: MessageUsage = {
    ...(m.outputTokens != null ? { outputTokens: m.outputTokens } : {}),
    ...(m.ttftMs != null ? { ttftMs: m.ttftMs } : {}),
    ...(m.durationMs != null ? { durationMs: m.durationMs } : {}),
    ...(m.tokensPerSecond != null ? { tokensPerSecond: m.tokensPerSecond } : {}),
  };
  if (Object.keys(stored).length > 0) entry = { ...entry, usage: { ...entry.usage, ...stored } };
  return finish(entry);
}

type TurnEvent = Extract<
  Event,
  {
    type:
      | 'message_start'
      | 'text_delta'
      | 'thinking_start'
      | 'thinking_delta'
      | 'thinking_end'
      | 'tool_call'
      | 'tool_result'
      | 'message_end'
      | 'token_usage';
  }
>;

function turnEvent(state: ChatState, ev: TurnEvent): ChatState {
  const entries = state.entries;
  let at = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'assistant' && e.id === ev.messageId) {
      at = i;
      break;
    }
  }
  // A result goes to the message its call is drawn in, which a steer may have ended meanwhile.
  if (ev.type === 'tool_result') {
    const owner = findToolOwner(entries, ev.id);
    if (owner !== -1 && owner !== at)
      return {
        ...state,
        entries: replaceAt(entries, owner, applyToMessage(entries[owner] as AssistantEntry, ev)),
      };
  }
  if (ev.type === 'message_start') {
    // A message that starts again (the in-flight turn replayed over a partly stored copy) starts empty.
    const fresh: AssistantEntry = { kind: 'assistant', id: ev.messageId, parts: [], streaming: true };
    if (at === -1) return { ...state, entries: [...entries, fresh] };
    return { ...state, entries: replaceAt(entries, at, fresh) };
  }
  if (at === -1) {
    // A tool's result may name the message the call was made in, or one of its own.
    if (ev.type === 'tool_result') {
      const owner = findToolOwner(entries, ev.id);
      if (owner !== -1)
        return {
          ...state,
          entries: replaceAt(entries, owner, applyToMessage(entries[owner] as AssistantEntry, ev)),
        };
    }
    // The end of a message never shown, or its figures, make no message of their own.
    if (ev.type === 'message_end' || ev.type === 'token_usage' || ev.type === 'thinking_end') return state;
    const fresh: AssistantEntry = { kind: 'assistant', id: ev.messageId, parts: [], streaming: true };
    return { ...state, entries: [...entries, applyToMessage(fresh, ev)] };
  }
  const updated = applyToMessage(entries[at] as AssistantEntry, ev);
  // A part a steer ended before the agent said anything leaves no empty message behind.
  if (ev.type === 'message_end' && ev.stopReason === undefined && updated.parts.length === 0)
    return { ...state, entries: entries.filter((_, i) => i !== at) };
  return { ...state, entries: replaceAt(entries, at, updated) };
}

const isEmpty = (v: unknown): boolean =>
  v === undefined || v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** A permission request names its tool call with the title and input the agent settled on; a call
 * shown before the agent had them takes them from it. */
function withPermissionTool(state: ChatState, request: PermissionRequest): ChatState {
  const { id, title, args } = request.toolCall;
  const owner = findToolOwner(state.entries, id);
  if (owner === -1) return state;
  const m = state.entries[owner] as AssistantEntry;
  const parts = m.parts.map((p) =>
    p.kind === 'tool' && p.id === id && isEmpty(p.args)
      ? { ...p, name: title || p.name, args: isEmpty(args) ? p.args : args }
      : p,
  );
  return { ...state, entries: replaceAt(state.entries, owner, { ...m, parts }) };
}

function findToolOwner(entries: readonly Entry[], toolId: string): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    if (e.kind === 'assistant' && e.parts.some((p) => p.kind === 'tool' && p.id === toolId)) return i;
  }
  return -1;
}

const replaceAt = <T>(list: readonly T[], i: number, value: T): T[] => {
  const copy = list.slice();
  copy[i] = value;
  return copy;
};

/** One turn event applied to the message it belongs to. */
export function applyToMessage(m: AssistantEntry, ev: Event): AssistantEntry {
  const parts = m.parts;
  const last = parts[parts.length - 1];
  switch (ev.type) {
    case 'text_delta':
      if (ev.delta === '') return m;
      if (last?.kind === 'text')
        return {
          ...m,
          parts: replaceAt(parts, parts.length - 1, { kind: 'text', text: last.text + ev.delta }),
        };
      return { ...m, parts: [...closeThinking(parts), { kind: 'text', text: ev.delta }] };
    case 'thinking_start':
      if (last?.kind === 'thinking' && last.open) return m;
      return { ...m, parts: [...parts, { kind: 'thinking', text: '', open: true }] };
    case 'thinking_delta':
      if (last?.kind === 'thinking' && last.open)
        return { ...m, parts: replaceAt(parts, parts.length - 1, { ...last, text: last.text + ev.delta }) };
      return { ...m, parts: [...parts, { kind: 'thinking', text: ev.delta, open: true }] };
    case 'thinking_end':
      return { ...m, parts: closeThinking(parts) };
    case 'tool_call': {
      const i = parts.findIndex((p) => p.kind === 'tool' && p.id === ev.id);
      if (i !== -1) {
        const old = parts[i] as Extract<Part, { kind: 'tool' }>;
        return {
          ...m,
          parts: replaceAt(parts, i, { ...old, name: ev.name || old.name, args: ev.args ?? old.args }),
        };
      }
      return {
        ...m,
        parts: [
          ...closeThinking(parts),
          { kind: 'tool', id: ev.id, name: ev.name, args: ev.args, done: false },
        ],
      };
    }
    case 'tool_result': {
      const i = parts.findIndex((p) => p.kind === 'tool' && p.id === ev.id);
      const done = { result: ev.result, isError: ev.isError === true, done: true };
      if (i === -1)
        return { ...m, parts: [...parts, { kind: 'tool', id: ev.id, name: '', args: undefined, ...done }] };
      return {
        ...m,
        parts: replaceAt(parts, i, { ...(parts[i] as Extract<Part, { kind: 'tool' }>), ...done }),
      };
    }
    case 'message_end':
      return finish({
        ...m,
        ...(ev.stopReason !== undefined ? { stopReason: ev.stopReason } : {}),
        ...(ev.errorMessage !== undefined ? { errorMessage: ev.errorMessage } : {}),
      });
    case 'token_usage': {
      // Counts all zero come from an agent that reports none: they are not known, so not shown.
      const counted =
        (ev.usage.totalTokens ?? 0) > 0 || ev.usage.inputTokens > 0 || ev.usage.outputTokens > 0;
      return {
        ...m,
        usage: {
          ...m.usage,
          ...(counted ? { inputTokens: ev.usage.inputTokens, outputTokens: ev.usage.outputTokens } : {}),
          ttftMs: ev.ttftMs ?? m.usage?.ttftMs ?? null,
          durationMs: ev.durationMs ?? m.usage?.durationMs ?? null,
          tokensPerSecond: ev.tokensPerSecond ?? m.usage?.tokensPerSecond ?? null,
        },
      };
    }
    default:
      return m;
  }
}

function closeThinking(parts: readonly Part[]): Part[] {
  return parts.map((p) => (p.kind === 'thinking' && p.open ? { ...p, open: false } : p));
}

function finish(m: AssistantEntry): AssistantEntry {
  if (!m.streaming && !m.parts.some((p) => p.kind === 'thinking' && p.open)) return m;
  return { ...m, streaming: false, parts: closeThinking(m.parts) };
}

/** The text of a message, its parts joined: what a reader copies. */
export const messageText = (m: AssistantEntry): string =>
  m.parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('');
