// The chat wire (server ↔ browser): every member of both unions has a sample that validates, a
// broken field is named, images keep to their carrier rule and size cap, and the replay subset is
// exactly spectral's.
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  AGENT_FRAME_FIXTURES,
  AUTH_METHOD_INFO_GUARD,
  type AuthMethodInfo,
  AuthMethodInfoSchema,
  BRIDGE_INFO_GUARD,
  type BridgeInfo,
  BridgeInfoSchema,
  CAIRN_CLIENT_MESSAGE_MEMBERS,
  CAIRN_SERVER_EVENT_MEMBERS,
  CHAT_CLIENT_MESSAGE_FIXTURES,
  CHAT_HTTP_BODIES,
  CHAT_HTTP_FIXTURES,
  CHAT_HTTP_ROUTES,
  CHAT_SERVER_EVENT_FIXTURES,
  type ChatSessionSummary,
  ClientMessage,
  ImageAttachment,
  InProgressTurnSnapshot,
  isReplayableTurnEvent,
  MAX_INLINE_IMAGE_BASE64_CHARS,
  matches,
  REPLAYABLE_TURN_EVENT_TYPES,
  ReplayableTurnEvent,
  SESSION_CONFIG_OPTION_GUARD,
  SESSION_STREAM_FRAME_MEMBERS,
  ServerEvent,
  type ServerEvent as ServerEventValue,
  type SessionConfigOption,
  SessionConfigOptionSchema,
  SessionReadyEvent,
  STREAM_FRAME_FIXTURES,
  StreamMessageRow,
  validate,
  validateClientMessage,
  validateServerEvent,
  WireMessage,
  type WireSessionSummary,
} from '../src/index.js';
import { mutations } from './mutate.js';

type Member = TObject & { properties: { type: { const: string } } };

/** The members of a union schema, read from the schema itself. */
const membersOf = (union: { anyOf: readonly TSchema[] }) => union.anyOf as unknown as readonly Member[];
const typeOf = (member: Member) => member.properties.type.const;

const SERVER_MEMBERS = membersOf(ServerEvent);
const CLIENT_MEMBERS = membersOf(ClientMessage);
const serverFixtures = CHAT_SERVER_EVENT_FIXTURES as unknown as Record<string, Record<string, unknown>>;
const clientFixtures = CHAT_CLIENT_MESSAGE_FIXTURES as unknown as Record<string, Record<string, unknown>>;

/** The member types of spectral's `ReplayableTurnEvent`, as its wire lists them. */
const SEED_REPLAYABLE = [
  'message_start',
  'text_delta',
  'thinking_start',
  'thinking_delta',
  'thinking_end',
  'tool_call',
  'tool_result',
  'message_end',
  'token_usage',
  'error',
  'subagent_start',
  'subagent_progress',
  'subagent_end',
  'subagent_tool_progress',
] as const;

const sides = [
  { side: 'server event', members: SERVER_MEMBERS, fixtures: serverFixtures, check: validateServerEvent },
  { side: 'client message', members: CLIENT_MEMBERS, fixtures: clientFixtures, check: validateClientMessage },
] as const;

describe.each(sides)('every $side', ({ members, fixtures, check }) => {
  it('has one sample per member of the union, and no sample for a type the union lacks', () => {
    const types = members.map(typeOf);
    expect(new Set(types).size).toBe(types.length);
    expect(Object.keys(fixtures).sort()).toEqual([...types].sort());
  });

  it.each(members.map((member) => [typeOf(member), member] as const))(
    '%s: its sample validates',
    (type, member) => {
      const sample = fixtures[type];
      expect(check(sample)).toEqual({ ok: true, value: sample });
      expect(validate(member, sample).ok).toBe(true);
      // JSON on the wire: the sample survives a round trip and still validates.
      expect(check(JSON.parse(JSON.stringify(sample))).ok).toBe(true);
    },
  );

  it.each(members.map((member) => [typeOf(member), member] as const))(
    '%s: a missing required field or one of the wrong type is refused, naming it',
    (type, member) => {
      const cases = mutations(member, fixtures[type] ?? {});
      expect(cases.length).toBeGreaterThan(0);
      for (const { label, field, value } of cases) {
        const result = check(value);
        expect(result.ok, label).toBe(false);
        if (!result.ok) {
          expect(result.error.field.startsWith(field), `${label}: ${result.error.message}`).toBe(true);
          expect(result.error.code).toBe('invalid_args');
          expect(result.error.message).toContain(result.error.field);
        }
      }
    },
  );

  it('refuses a type no member has, and anything that is not an object, naming the fault', () => {
    expect(check({ type: 'no_such_frame' })).toMatchObject({ ok: false, error: { field: '/type' } });
    expect(check({ content: 'hi' })).toMatchObject({
      ok: false,
      error: { field: '/type', message: '/type: Expected required property' },
    });
    expect(check({ type: 7 })).toMatchObject({ ok: false, error: { field: '/type' } });
    expect(check({ type: '__proto__' })).toMatchObject({ ok: false, error: { field: '/type' } });
    for (const value of [null, 'stop', 42, [], [{ type: 'stop' }], undefined]) {
      expect(check(value)).toMatchObject({ ok: false, error: { field: '' } });
    }
  });
});

describe('the unions', () => {
  it('hold spectral members first, then cairn’s own', () => {
    const cairnServer = CAIRN_SERVER_EVENT_MEMBERS.map((member) => member.properties.type.const);
    expect(cairnServer).toEqual([
      'permission_request',
      'permission_settled',
      'sign_in_required',
      'config_options',
      'steer_result',
      'sign_in_result',
      'available_commands',
      'permission_rule_applied',
    ]);
    expect(SERVER_MEMBERS.slice(-cairnServer.length).map(typeOf)).toEqual(cairnServer);
    expect(SERVER_MEMBERS).toHaveLength(47 + cairnServer.length);
    expect(CLIENT_MEMBERS.map(typeOf)).toEqual([
      'user_message',
      ...CAIRN_CLIENT_MESSAGE_MEMBERS.map((member) => member.properties.type.const),
    ]);
  });

  it('agree with the per-type check on every sample', () => {
    for (const sample of Object.values(serverFixtures)) expect(matches(ServerEvent, sample)).toBe(true);
    for (const sample of Object.values(clientFixtures)) expect(matches(ClientMessage, sample)).toBe(true);
  });

  it('name the field of the member the type picks, deep inside a frame', () => {
    const ready = CHAT_SERVER_EVENT_FIXTURES.session_ready;
    const turn = ready.currentTurn!;
    const broken: [unknown, string][] = [
      [
        { ...ready, currentTurn: { ...turn, events: [{ type: 'text_delta', messageId: 'm' }] } },
        '/currentTurn/events/0/delta',
      ],
      [{ ...ready, history: [{ ...ready.history[0], role: 'robot' }] }, '/history/0/role'],
      [
        {
          ...ready,
          pendingPermissions: [
            { ...ready.pendingPermissions![0], options: [{ optionId: 'a', name: 'A', kind: 'maybe' }] },
          ],
        },
        '/pendingPermissions/0/options/0/kind',
      ],
      [
        {
          type: 'config_options',
          configOptions: [{ id: 'model', name: 'Model', type: 'select', currentValue: true, options: [] }],
        },
        '/configOptions/0/currentValue',
      ],
      [{ ...CHAT_SERVER_EVENT_FIXTURES.permission_request, toolCall: { id: 't' } }, '/toolCall/title'],
    ];
    for (const [value, field] of broken) {
      expect(validateServerEvent(value), field).toMatchObject({ ok: false, error: { field } });
    }
    expect(validateClientMessage({ type: 'steer', content: 'x', images: [{ data: 'AAAA' }] })).toMatchObject({
      ok: false,
      error: { field: '/images/0/mimeType' },
    });
    expect(validateClientMessage({ type: 'set_config_option', configId: 'm', value: 3 })).toMatchObject({
      ok: false,
      error: { field: '/value' },
    });
  });

  it('accept a spectral session_ready without any of cairn’s fields', () => {
    const {
      agent: _agent,
      configOptions: _configOptions,
      supportsSteering: _supportsSteering,
      supportsImageInput: _supportsImageInput,
      queue: _queue,
      pendingPermissions: _pendingPermissions,
      signIn: _signIn,
      ...spectral
    } = CHAT_SERVER_EVENT_FIXTURES.session_ready;
    expect(validateServerEvent(spectral).ok).toBe(true);
    expect(validateServerEvent({ ...spectral, signIn: CHAT_SERVER_EVENT_FIXTURES.sign_in_required }).ok).toBe(
      true,
    );
    const optional = Object.keys(SessionReadyEvent.properties).filter(
      (key) => !((SessionReadyEvent.required ?? []) as string[]).includes(key),
    );
    for (const key of [
      'agent',
      'configOptions',
      'supportsSteering',
      'supportsImageInput',
      'queue',
      'pendingPermissions',
      'signIn',
    ]) {
      expect(optional).toContain(key);
    }
  });
});

describe('the message row', () => {
  it('is the seed’s WireMessage by name, and takes the reader stream’s narrower rows as they are', () => {
    expect(WireMessage.$id).toBe('WireMessage');
    expect(StreamMessageRow.$id).toBe('StreamMessageRow');
    const rows = [STREAM_FRAME_FIXTURES.UserMessageAppendedFrame.message];
    for (const row of rows) expect(validate(WireMessage, row).ok).toBe(true);
    expectTypeOf<StreamMessageRow>().toExtend<WireMessage>();
  });

  it('keeps an assistant message’s figures, and takes any number where the seed says number', () => {
    const [, assistant] = CHAT_SERVER_EVENT_FIXTURES.history_chunk.messages ?? [];
    expect(assistant?.tokensPerSecond).toBe(180.5);
    for (const figures of [{ ttftMs: -1 }, { outputTokens: 2.5 }, { createdAt: -5, sequence: 0.5 }]) {
      expect(validate(WireMessage, { ...assistant, ...figures }).ok, JSON.stringify(figures)).toBe(true);
    }
    expect(validate(WireMessage, { ...assistant, outputTokens: null, durationMs: null }).ok).toBe(true);
    expect(validate(WireMessage, { ...assistant, ttftMs: '640' })).toMatchObject({
      ok: false,
      error: { field: '/ttftMs' },
    });
  });
});

describe('what the seed types loosely', () => {
  const call = CHAT_SERVER_EVENT_FIXTURES.tool_call as Record<string, unknown>;
  const result = CHAT_SERVER_EVENT_FIXTURES.tool_result as Record<string, unknown>;

  it('accepts a tool_call without args and a tool_result without result, as `unknown` allows', () => {
    const { args: _args, ...noArgs } = call;
    const { result: _result, ...noResult } = result;
    expect(validateServerEvent(noArgs).ok).toBe(true);
    expect(validateServerEvent(noResult).ok).toBe(true);
    const progress = CHAT_SERVER_EVENT_FIXTURES.subagent_tool_progress as Record<string, unknown>;
    const { args: _progressArgs, ...progressNoArgs } = progress;
    expect(validateServerEvent(progressNoArgs).ok).toBe(true);
  });

  it('accepts the empty ids the seed’s plain strings allow', () => {
    expect(validateServerEvent({ ...call, id: '', messageId: '' }).ok).toBe(true);
    expect(validateServerEvent({ ...result, id: '', messageId: '' }).ok).toBe(true);
    const appended = CHAT_SERVER_EVENT_FIXTURES.user_message_appended;
    expect(validateServerEvent({ ...appended, message: { ...appended.message, id: '' } }).ok).toBe(true);
    expect(
      validateServerEvent({
        type: 'run_state',
        sessionId: '',
        runState: CHAT_SERVER_EVENT_FIXTURES.run_state.runState,
      }).ok,
    ).toBe(true);
  });

  it('accepts any number where the seed says number: the range is checked where the value is used', () => {
    const usage = CHAT_SERVER_EVENT_FIXTURES.token_usage;
    for (const value of [
      { ...usage, usage: { ...usage.usage, totalTokens: 1.5, inputTokens: -1 } },
      { ...CHAT_SERVER_EVENT_FIXTURES.history_chunk, index: 1.5, total: -2 },
      { ...CHAT_SERVER_EVENT_FIXTURES.session_ready_end, totalMessages: 0.5 },
      { ...call, startedAt: -10 },
      { type: 'retry_failed', attempt: 0 },
      { type: 'interval_armed', intervalMinutes: -1, hasLoop: false, goal: null },
    ]) {
      expect(validateServerEvent(value).ok, JSON.stringify(value).slice(0, 80)).toBe(true);
    }
    expect(
      validateClientMessage({
        type: 'user_message',
        content: 'x',
        loopMaxIterations: 0.5,
        intervalMinutes: -3,
      }).ok,
    ).toBe(true);
    expect(validateServerEvent({ ...call, startedAt: '10' })).toMatchObject({
      ok: false,
      error: { field: '/startedAt' },
    });
  });
});

describe('the reader stream beside the chat wire', () => {
  it('gives a frame a spectral name only when it carries that frame’s shape', () => {
    const chatTypes = new Set(SERVER_MEMBERS.map(typeOf));
    const fixtures = STREAM_FRAME_FIXTURES as unknown as Record<string, Record<string, unknown>>;
    const shared: string[] = [];
    for (const member of SESSION_STREAM_FRAME_MEMBERS) {
      const type = member.properties.type.const;
      if (!chatTypes.has(type)) continue;
      shared.push(type);
      const sample = fixtures[member.$id as string];
      expect(sample, member.$id).toBeDefined();
      expect(validateServerEvent(sample), `${type} as the reader sends it`).toMatchObject({ ok: true });
    }
    expect(shared).toContain('tool_call');
    // The history of files read from disk is items, not message rows: its frames have names of their own.
    for (const type of ['session_ready', 'session_ready_start', 'history_chunk', 'session_ready_end']) {
      expect(shared).not.toContain(type);
    }
  });
});

describe('an image attachment', () => {
  const base = { mimeType: 'image/png' };
  const inline = (chars: number) => ({ ...base, data: 'A'.repeat(chars) });

  it('needs data or a url, and is refused with neither, naming the missing field', () => {
    expect(validate(ImageAttachment, base)).toMatchObject({ ok: false, error: { field: '/data' } });
    expect(validate(ImageAttachment, { ...base, imageId: 'img_1', width: 10 }).ok).toBe(false);
    expect(validate(ImageAttachment, { ...base, url: '/generated-images/img_1' }).ok).toBe(true);
    expect(validate(ImageAttachment, { ...base, data: 'iVBORw0K' }).ok).toBe(true);
    expect(
      validate(ImageAttachment, { ...base, data: 'iVBORw0K', url: 'https://img.example/1.png' }).ok,
    ).toBe(true);
    expect(validate(ImageAttachment, { data: 'iVBORw0K' })).toMatchObject({
      ok: false,
      error: { field: '/mimeType' },
    });
  });

  it('carries inline base64 up to the cap, and not one character more', () => {
    expect(MAX_INLINE_IMAGE_BASE64_CHARS).toBe(768 * 1024);
    expect(validate(ImageAttachment, inline(MAX_INLINE_IMAGE_BASE64_CHARS)).ok).toBe(true);
    expect(validate(ImageAttachment, inline(MAX_INLINE_IMAGE_BASE64_CHARS + 1))).toMatchObject({
      ok: false,
      error: { field: '/data' },
    });
    // A url beside oversized data does not let the data through.
    expect(
      validate(ImageAttachment, {
        ...inline(MAX_INLINE_IMAGE_BASE64_CHARS + 1),
        url: '/generated-images/img_1',
      }).ok,
    ).toBe(false);
  });

  it('is held to the cap wherever a frame carries one', () => {
    const big = inline(MAX_INLINE_IMAGE_BASE64_CHARS + 1);
    const fits = inline(MAX_INLINE_IMAGE_BASE64_CHARS);
    for (const type of ['user_message', 'steer'] as const) {
      const sample = CHAT_CLIENT_MESSAGE_FIXTURES[type];
      expect(validateClientMessage({ ...sample, images: [fits] }).ok).toBe(true);
      expect(validateClientMessage({ ...sample, images: [fits, big] })).toMatchObject({
        ok: false,
        error: { field: '/images/1/data' },
      });
    }
    const queue = [{ id: 'q1', content: 'x', images: [big], position: 0, createdAt: '2026-01-01T00:00:00Z' }];
    expect(validateServerEvent({ type: 'queue_changed', queue })).toMatchObject({
      ok: false,
      error: { field: '/queue/0/images/0/data' },
    });
  });
});

describe('the replayable turn events', () => {
  it('are exactly spectral’s member types', () => {
    const types = membersOf(ReplayableTurnEvent).map(typeOf);
    expect([...types].sort()).toEqual([...SEED_REPLAYABLE].sort());
    expect([...REPLAYABLE_TURN_EVENT_TYPES].sort()).toEqual([...SEED_REPLAYABLE].sort());
  });

  it('accept the sample of each of their types and refuse every other server event', () => {
    for (const [type, sample] of Object.entries(serverFixtures)) {
      const replayable = (SEED_REPLAYABLE as readonly string[]).includes(type);
      expect(validate(ReplayableTurnEvent, sample).ok, type).toBe(replayable);
      expect(isReplayableTurnEvent(sample as ServerEventValue), type).toBe(replayable);
      const snapshot = { turnId: 'turn_1', startedAt: 0, events: [sample] };
      expect(validate(InProgressTurnSnapshot, snapshot).ok, type).toBe(replayable);
    }
  });

  it('are, as a type, spectral’s Extract of the server events', () => {
    expectTypeOf<Static<typeof ReplayableTurnEvent>>().toEqualTypeOf<
      Extract<ServerEventValue, { type: (typeof SEED_REPLAYABLE)[number] }>
    >();
  });
});

describe('the HTTP bodies', () => {
  const fixtures = CHAT_HTTP_FIXTURES as Record<string, unknown>;

  it('have one sample per body schema, and every route’s bodies are among them', () => {
    const names = CHAT_HTTP_BODIES.map((schema) => schema.$id as string);
    expect(Object.keys(fixtures).sort()).toEqual([...names].sort());
    for (const route of Object.values(CHAT_HTTP_ROUTES)) {
      expect(CHAT_HTTP_BODIES as readonly TSchema[]).toContain(route.response);
      if ('request' in route) expect(CHAT_HTTP_BODIES as readonly TSchema[]).toContain(route.request);
    }
  });

  it.each(CHAT_HTTP_BODIES.map((schema) => [schema.$id as string, schema] as const))(
    '%s: its sample validates, and a broken field is named',
    (name, schema) => {
      const sample = fixtures[name] as Record<string, unknown>;
      expect(validate(schema, sample)).toEqual({ ok: true, value: sample });
      for (const { label, field, value } of mutations(schema, sample)) {
        const result = validate(schema, value);
        expect(result.ok, label).toBe(false);
        if (!result.ok) expect(result.error.field.startsWith(field), label).toBe(true);
      }
    },
  );

  it('type a chat session as a session summary with its agent, native id and workstation', () => {
    type Expected = WireSessionSummary & {
      agent: string;
      nativeSessionId: string | null;
      workstation: string;
      workstationOnline: boolean;
      archived?: boolean;
    };
    expectTypeOf<ChatSessionSummary>().toEqualTypeOf<{ [K in keyof Expected]: Expected[K] }>();
  });
});

describe('the agent wire shapes the chat passes on', () => {
  it('are typed as the agent wire types them', () => {
    expectTypeOf<Static<typeof BridgeInfoSchema>>().toEqualTypeOf<BridgeInfo>();
    expectTypeOf<Static<typeof AuthMethodInfoSchema>>().toEqualTypeOf<AuthMethodInfo>();
    expectTypeOf<Static<typeof SessionConfigOptionSchema>>().toEqualTypeOf<SessionConfigOption>();
  });

  it('accept what the agent wire’s own guards accept, and the guards accept the chat’s samples', () => {
    const wireOptions = [
      ...(AGENT_FRAME_FIXTURES.agent_opened.configOptions ?? []),
      ...(AGENT_FRAME_FIXTURES.agent_config_option_set.configOptions ?? []),
      ...(AGENT_FRAME_FIXTURES.agent_verified.configOptions ?? []),
    ];
    expect(wireOptions.length).toBeGreaterThan(0);
    for (const option of wireOptions) expect(validate(SessionConfigOptionSchema, option).ok).toBe(true);
    for (const option of CHAT_SERVER_EVENT_FIXTURES.config_options.configOptions) {
      expect(SESSION_CONFIG_OPTION_GUARD.check(option)).toBeNull();
    }
    for (const method of CHAT_SERVER_EVENT_FIXTURES.sign_in_required.methods) {
      expect(AUTH_METHOD_INFO_GUARD.check(method)).toBeNull();
    }
    for (const agent of CHAT_HTTP_FIXTURES.ChatAgentsResponse.agents)
      expect(BRIDGE_INFO_GUARD.check(agent)).toBeNull();
  });

  it('refuse what the guards refuse', () => {
    const refused: [TSchema, { check: (value: unknown) => unknown }, unknown][] = [
      [BridgeInfoSchema, BRIDGE_INFO_GUARD, { key: 'codex', name: 'Codex', adapterInstalled: false }],
      [BridgeInfoSchema, BRIDGE_INFO_GUARD, { key: 'codex' }],
      [AuthMethodInfoSchema, AUTH_METHOD_INFO_GUARD, { id: 'x', name: 3 }],
      [
        SessionConfigOptionSchema,
        SESSION_CONFIG_OPTION_GUARD,
        { id: 'm', name: 'M', type: 'boolean', currentValue: 'yes' },
      ],
      [
        SessionConfigOptionSchema,
        SESSION_CONFIG_OPTION_GUARD,
        {
          id: 'm',
          name: 'M',
          type: 'select',
          currentValue: 'a',
          options: [
            { value: 'a', name: 'A' },
            { group: 'g', name: 'G', options: [] },
          ],
        },
      ],
      [
        SessionConfigOptionSchema,
        SESSION_CONFIG_OPTION_GUARD,
        { id: 'm', name: 'M', type: 'radio', currentValue: 'a' },
      ],
    ];
    for (const [schema, guard, value] of refused) {
      expect(guard.check(value)).not.toBeNull();
      expect(validate(schema, value).ok).toBe(false);
    }
  });
});
