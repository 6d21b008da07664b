// The chat's state as a pure function of the server's frames: streamed deltas land once, a user
// message reaching the page twice shows once, the in-flight turn is rebuilt from session_ready
// with nothing repeated, and run_state frames of an older generation are ignored.
import { describe, expect, it } from 'vitest';
import { HistoryAssembler } from '../src/chat/chunks.js';
import {
  type AssistantEntry,
  type ChatState,
  initialChatState,
  messageText,
  reduceChat,
} from '../src/chat/state.js';
import type { ServerEvent, WireMessage, WireRunState } from '../src/chat/wire.js';

const run = (events: ServerEvent[], state: ChatState = initialChatState('s1')): ChatState =>
  events.reduce(reduceChat, state);

const runState = (generation: number, phase: WireRunState['phase'], busy: boolean): WireRunState => ({
  runId: `run-${generation}`,
  generation,
  busy,
  phase,
  flags: {
    streaming: phase === 'streaming',
    retrying: false,
    compacting: false,
    looping: false,
    queued: false,
  },
});

const ready = (over: Partial<Extract<ServerEvent, { type: 'session_ready' }>> = {}): ServerEvent => ({
  type: 'session_ready',
  sessionId: 's1',
  history: [],
  runState: runState(0, 'idle', false),
  currentTurn: null,
  contextWindowUsed: null,
  contextWindowMax: null,
  ...over,
});

const userMsg = (id: string, content: string, sequence = 1): WireMessage => ({
  id,
  role: 'user',
  content,
  events: '',
  createdAt: 1_000 + sequence,
  sequence,
});

const assistants = (s: ChatState): AssistantEntry[] =>
  s.entries.filter((e): e is AssistantEntry => e.kind === 'assistant');

const deltas = (id: string, parts: string[]): ServerEvent[] =>
  parts.map((delta) => ({ type: 'text_delta', messageId: id, delta }));

describe('the chat state', () => {
  it('appends each streamed delta once, in order, and ends the message on message_end', () => {
    const s = run([
      ready(),
      { type: 'message_start', messageId: 'a1' },
      ...deltas('a1', ['Hel', 'lo, ', 'world']),
      { type: 'message_end', messageId: 'a1', stopReason: 'stop' },
    ]);
    const [m] = assistants(s);
    expect(messageText(m!)).toBe('Hello, world');
    expect(m!.parts).toHaveLength(1);
    expect(m!.streaming).toBe(false);
    expect(m!.stopReason).toBe('stop');
  });

  it('keeps thinking, text and tool calls in the order they came, with the result on its call', () => {
    const s = run([
      ready(),
      { type: 'message_start', messageId: 'a1' },
      { type: 'thinking_start', messageId: 'a1' },
      { type: 'thinking_delta', messageId: 'a1', delta: 'Let me ' },
      { type: 'thinking_delta', messageId: 'a1', delta: 'write it.' },
      { type: 'thinking_end', messageId: 'a1' },
      { type: 'text_delta', messageId: 'a1', delta: 'Writing.' },
      {
        type: 'tool_call',
        messageId: 'a1',
        id: 't1',
        name: 'Write',
        args: { file_path: '/p/a.txt', content: 'x' },
      },
      {
        type: 'tool_call',
        messageId: 'a1',
        id: 't1',
        name: 'Write',
        args: { file_path: '/p/a.txt', content: 'xy' },
      },
      { type: 'tool_result', messageId: 'a1', id: 't1', result: 'ok' },
      { type: 'text_delta', messageId: 'a1', delta: 'Done.' },
    ]);
    const [m] = assistants(s);
    expect(m!.parts.map((p) => p.kind)).toEqual(['thinking', 'text', 'tool', 'text']);
    expect(m!.parts[0]).toEqual({ kind: 'thinking', text: 'Let me write it.', open: false });
    expect(m!.parts[2]).toMatchObject({
      id: 't1',
      args: { content: 'xy' },
      result: 'ok',
      done: true,
      isError: false,
    });
    expect(m!.streaming).toBe(true);
  });

  it('shows a user message once however many times it is appended', () => {
    const hello = userMsg('u1', 'hello');
    const s = run([
      ready({ history: [hello] }),
      { type: 'user_message_appended', message: hello, isFirstUserMessage: true },
      { type: 'user_message_appended', message: userMsg('u2', 'again', 2) },
      { type: 'user_message_appended', message: userMsg('u2', 'again', 2) },
    ]);
    expect(s.entries.map((e) => e.id)).toEqual(['u1', 'u2']);
  });

  it('rebuilds an in-flight turn from session_ready and continues it with the live deltas, none repeated', () => {
    const live: ServerEvent[] = [
      { type: 'message_start', messageId: 'a1' },
      ...deltas('a1', ['one ', 'two ', 'three ']),
    ];
    // A first tab saw the turn from the start.
    const first = run([ready({ history: [userMsg('u1', 'count')] }), ...live]);
    // A reconnect: the server's snapshot carries the turn so far, then the deltas go on.
    const snapshot = ready({
      history: [userMsg('u1', 'count')],
      runState: runState(1, 'streaming', true),
      currentTurn: { turnId: 'turn-1', startedAt: 5, events: live },
    });
    const rebuilt = run([snapshot, ...deltas('a1', ['four'])], first);
    expect(rebuilt.entries.map((e) => e.id)).toEqual(['u1', 'a1']);
    expect(messageText(assistants(rebuilt)[0]!)).toBe('one two three four');
    // A second reconnect later in the turn again holds each delta once.
    const again = run(
      [
        ready({
          history: [userMsg('u1', 'count')],
          currentTurn: { turnId: 'turn-1', startedAt: 5, events: [...live, ...deltas('a1', ['four'])] },
        }),
        ...deltas('a1', [' five']),
      ],
      rebuilt,
    );
    expect(messageText(assistants(again)[0]!)).toBe('one two three four five');
  });

  it('replays the in-flight turn over a partly stored copy of the same message without doubling it', () => {
    const partial: WireMessage = {
      id: 'a1',
      role: 'assistant',
      content: 'one two ',
      events:
        '{"type":"text_delta","messageId":"a1","delta":"one "}\n{"type":"text_delta","messageId":"a1","delta":"two "}\n',
      createdAt: 2,
      sequence: 2,
    };
    const s = run([
      ready({
        history: [userMsg('u1', 'count'), partial],
        currentTurn: {
          turnId: 't',
          startedAt: 1,
          events: [{ type: 'message_start', messageId: 'a1' }, ...deltas('a1', ['one ', 'two '])],
        },
      }),
      ...deltas('a1', ['three']),
    ]);
    expect(assistants(s)).toHaveLength(1);
    expect(messageText(assistants(s)[0]!)).toBe('one two three');
  });

  it("renders a stored assistant message from its events, with the server's usage figures", () => {
    const events = [
      { type: 'message_start', messageId: 'a1' },
      { type: 'thinking_delta', messageId: 'a1', delta: 'hmm' },
      { type: 'text_delta', messageId: 'a1', delta: 'Hi ' },
      { type: 'tool_call', messageId: 'a1', id: 't1', name: 'Bash', args: { command: 'ls' } },
      { type: 'tool_result', messageId: 'a1', id: 't1', result: 'a.txt', isError: false },
      { type: 'text_delta', messageId: 'a1', delta: 'there' },
      { type: 'message_end', messageId: 'a1', stopReason: 'stop' },
    ];
    const stored: WireMessage = {
      id: 'a1',
      role: 'assistant',
      content: 'Hi there',
      events: `${events.map((e) => JSON.stringify(e)).join('\n')}\nnot json\n`,
      createdAt: 2,
      sequence: 2,
      outputTokens: 40,
      ttftMs: 120,
      durationMs: 800,
      tokensPerSecond: 50,
    };
    const s = run([ready({ history: [stored, userMsg('u1', 'hi', 1)] })]);
    expect(s.entries.map((e) => e.kind)).toEqual(['user', 'assistant']);
    const m = assistants(s)[0]!;
    expect(m.parts.map((p) => p.kind)).toEqual(['thinking', 'text', 'tool', 'text']);
    expect(messageText(m)).toBe('Hi there');
    expect(m.streaming).toBe(false);
    expect(m.usage).toEqual({ outputTokens: 40, ttftMs: 120, durationMs: 800, tokensPerSecond: 50 });
    // A stored message without events shows its text.
    const plain = run([ready({ history: [{ ...stored, events: '' }] })]);
    expect(messageText(assistants(plain)[0]!)).toBe('Hi there');
  });

  it('takes run_state of the same or a newer generation and ignores an older one', () => {
    let s = run([ready({ runState: runState(3, 'idle', false) })]);
    s = reduceChat(s, { type: 'run_state', sessionId: 's1', runState: runState(4, 'streaming', true) });
    expect(s.runState?.phase).toBe('streaming');
    s = reduceChat(s, { type: 'run_state', sessionId: 's1', runState: runState(3, 'idle', false) });
    expect(s.runState).toMatchObject({ generation: 4, phase: 'streaming', busy: true });
    s = reduceChat(s, { type: 'run_state', sessionId: 's1', runState: runState(4, 'idle', false) });
    expect(s.runState).toMatchObject({ generation: 4, phase: 'idle', busy: false });
    // The word on a steer lasts until the next run.
    s = reduceChat(s, { type: 'steer_result', ok: true, outcome: 'injected' });
    s = reduceChat(s, { type: 'run_state', sessionId: 's1', runState: runState(4, 'idle', false) });
    expect(s.steer).toEqual({ ok: true, outcome: 'injected', error: undefined });
    s = reduceChat(s, { type: 'run_state', sessionId: 's1', runState: runState(5, 'streaming', true) });
    expect(s.steer).toBeNull();
  });

  it('shows a permission card until it is settled, from this tab or another', () => {
    const request: ServerEvent = {
      type: 'permission_request',
      requestId: 'r1',
      toolCall: { id: 't1', title: 'Write /p/a.txt', kind: 'edit' },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    };
    let s = run([
      ready(),
      { type: 'message_start', messageId: 'a1' },
      { type: 'tool_call', messageId: 'a1', id: 't1', name: 'Preparing file…', args: {} },
      request,
      request,
    ]);
    expect(s.permissions).toHaveLength(1);
    // The call shown before the agent named it takes the name from the request.
    expect(assistants(s)[0]!.parts[0]).toMatchObject({ kind: 'tool', name: 'Write /p/a.txt' });
    expect(s.permissions[0]!.settled).toBeUndefined();
    s = reduceChat(s, { type: 'permission_settled', requestId: 'r1', optionId: 'reject', by: 'another tab' });
    expect(s.permissions[0]!.settled).toEqual({ optionId: 'reject', by: 'another tab' });
    // A reconnect shows what is still pending, from the server.
    s = run([ready({ pendingPermissions: [] })], s);
    expect(s.permissions).toEqual([]);
  });

  it('keeps the queue in its order, the sign-in card until a new prompt, and usage on its message', () => {
    let s = run([
      ready(),
      {
        type: 'queue_changed',
        queue: [
          { id: 'q2', content: 'second', position: 1, createdAt: '2' },
          { id: 'q1', content: 'first', position: 0, createdAt: '1' },
        ],
      },
      { type: 'error', message: 'Sign in' },
      {
        type: 'sign_in_required',
        agent: 'claude-code',
        message: 'Sign in',
        methods: [{ id: 'm', name: 'Login' }],
      },
      { type: 'error', message: 'Sign in' },
      { type: 'message_start', messageId: 'a1' },
      {
        type: 'token_usage',
        messageId: 'a1',
        usage: { inputTokens: 12, outputTokens: 7 },
        contextWindowUsed: 19,
        contextWindowMax: 200_000,
        ttftMs: 30,
        durationMs: 100,
        tokensPerSecond: 70,
      },
    ]);
    expect(s.queue.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect(s.signIn?.methods[0]?.name).toBe('Login');
    expect(s.entries.some((e) => e.kind === 'notice')).toBe(false);
    expect(s.entries.some((e) => e.kind === 'notice')).toBe(false);
    expect(assistants(s)[0]!.usage).toEqual({
      inputTokens: 12,
      outputTokens: 7,
      ttftMs: 30,
      durationMs: 100,
      tokensPerSecond: 70,
    });
    expect([s.contextWindowUsed, s.contextWindowMax]).toEqual([19, 200_000]);
    s = reduceChat(s, { type: 'user_message_appended', message: userMsg('u9', 'again', 9) });
    expect(s.signIn).toBeNull();
  });

  it('ends a message that never got message_end when the agent ends, and lists errors as notices', () => {
    const s = run([
      ready(),
      { type: 'message_start', messageId: 'a1' },
      { type: 'thinking_delta', messageId: 'a1', delta: 'x' },
      { type: 'agent_end' },
      { type: 'error', message: 'the agent went away' },
      { type: 'message_end', messageId: 'never-started' },
      {
        type: 'token_usage',
        messageId: 'never-started',
        usage: { inputTokens: 1, outputTokens: 1 },
        contextWindowUsed: 5,
        contextWindowMax: 10,
      },
      { type: 'frame_from_the_future' } as unknown as ServerEvent,
    ]);
    const m = assistants(s)[0]!;
    expect(m.streaming).toBe(false);
    expect(m.parts[0]).toMatchObject({ kind: 'thinking', open: false });
    expect(s.entries.at(-1)).toMatchObject({ kind: 'notice', level: 'error', text: 'the agent went away' });
    expect(assistants(s)).toHaveLength(1);
    expect(s.contextWindowUsed).toBe(5);
  });
  it('follows a loop to its end and an interval through its ticks', () => {
    let s = run([
      ready(),
      { type: 'loop_iteration', iteration: 1, maxIterations: 5, prompt: 'go' },
      { type: 'loop_iteration', iteration: 2, maxIterations: 5, prompt: 'go' },
    ]);
    expect(s.loop).toEqual({ iteration: 2, maxIterations: 5 });
    s = reduceChat(s, { type: 'loop_complete', iterations: 2 });
    expect(s.loop).toEqual({ iteration: 2, maxIterations: 5, ended: 'done' });
    s = reduceChat(s, { type: 'loop_max_iterations', iterations: 5 });
    expect(s.loop?.ended).toBe('max');
    s = run(
      [
        { type: 'interval_armed', intervalMinutes: 10, hasLoop: false, goal: null },
        { type: 'interval_launched', occurrence: 1 },
        { type: 'interval_skipped', reason: 'busy' },
      ],
      s,
    );
    expect(s.interval).toMatchObject({ active: true, minutes: 10, launches: 1, lastSkipped: true });
    s = reduceChat(s, { type: 'interval_stopped' });
    expect(s.interval?.active).toBe(false);
    // A reconnect takes the scheduler's state from session_ready.
    s = run(
      [ready({ intervalActive: true, intervalMinutes: 15, intervalLaunchCount: 3, intervalNextTickAt: 99 })],
      s,
    );
    expect(s.interval).toEqual({ active: true, minutes: 15, nextTickAt: 99, launches: 3 });
    expect(s.loop).toBeNull();
  });
});

describe('settled permissions and dev processes', () => {
  const request = {
    requestId: 'perm-1',
    toolCall: { id: 'call-1', title: 'Write notes.txt' },
    options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
  };
  const process = {
    id: 'term-1',
    label: 'npm run dev',
    command: 'npm run dev',
    cwd: '/p',
    status: 'running',
    startedAt: 1,
    exitCode: null,
    lastOutputTail: '',
    fullOutputPath: '/h/term-1.log',
  };

  it('shows a settled request from session_ready as settled, before the ones still open', () => {
    const state = run([
      ready({
        settledPermissions: [
          { request: { ...request, type: 'permission_request' } as never, optionId: 'allow', by: 'answer' },
        ],
        pendingPermissions: [{ ...request, requestId: 'perm-2' }],
      }),
    ]);
    expect(state.permissions.map((p) => [p.requestId, p.settled?.optionId])).toEqual([
      ['perm-1', 'allow'],
      ['perm-2', undefined],
    ]);
    expect(state.permissions[0]).not.toHaveProperty('type');
  });

  it('keeps each dev process by id: started, its output tail, then its end', () => {
    const state = run([
      ready({ devProcesses: [] }),
      { type: 'dev_processes_changed', processId: 'term-1', process, change: 'started' },
      { type: 'dev_process_output', processId: 'term-1', chunk: 'ready\n', tail: 'ready\n' },
      { type: 'dev_process_output', processId: 'term-9', chunk: 'x', tail: 'x' },
      {
        type: 'dev_processes_changed',
        processId: 'term-1',
        process: { ...process, status: 'killed', lastOutputTail: 'ready\n' },
        change: 'killed',
      },
    ]);
    expect(state.devProcesses).toEqual([{ ...process, status: 'killed', lastOutputTail: 'ready\n' }]);
    // A reload rebuilds the list from session_ready alone.
    expect(run([ready({ devProcesses: [process] })], state).devProcesses).toEqual([process]);
  });

  it('takes a tool call without args and a result without result, under an empty id', () => {
    const s = run([
      ready(),
      { type: 'message_start', messageId: '' },
      { type: 'tool_call', messageId: '', id: '', name: 'Ping' },
      { type: 'tool_result', messageId: '', id: '' },
    ]);
    const [m] = assistants(s);
    expect(m!.parts).toEqual([expect.objectContaining({ kind: 'tool', id: '', name: 'Ping', done: true })]);
    expect(m!.parts[0]).not.toHaveProperty('args', expect.anything());
  });

  it('builds its state from a chunked opening as from the same session_ready whole', async () => {
    const history = [userMsg('u1', 'first', 1), userMsg('u2', 'second', 2), userMsg('u3', 'third', 3)];
    const whole = run([ready({ history, agent: 'wire' })]);
    const assembler = new HistoryAssembler();
    assembler.begin({
      type: 'session_ready_start',
      sessionId: 's1',
      runState: runState(0, 'idle', false),
      currentTurn: null,
      contextWindowUsed: null,
      contextWindowMax: null,
      agent: 'wire',
      totalChunks: 2,
      totalMessages: 3,
    });
    await assembler.add({
      type: 'history_chunk',
      sessionId: 's1',
      index: 1,
      total: 2,
      messages: history.slice(2),
    });
    await assembler.add({
      type: 'history_chunk',
      sessionId: 's1',
      index: 0,
      total: 2,
      messages: history.slice(0, 2),
    });
    const done = assembler.finish({ type: 'session_ready_end', sessionId: 's1', totalMessages: 3 });
    expect(done.ok).toBe(true);
    if (!done.ok) return;
    const chunked = run([done.event]);
    expect(chunked.entries).toEqual(whole.entries);
    expect(chunked.ready).toBe(true);
  });
});
