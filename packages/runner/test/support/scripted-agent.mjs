#!/usr/bin/env node
// An ACP agent for tests, made with the SDK's agent side: it does on demand what real agents
// cannot be made to do (crash mid-turn, a burst of updates, hang, garbage on stdout), plus the
// ordinary things (a turn with a permission, steering, session/load, the sign-in error).
//
// The behaviour comes from SCRIPTED_AGENT_BEHAVIOUR (or --behaviour=...), and a prompt can
// override it for one turn with a directive in its text: [[burst:1000]], [[crash]], [[hang]].
//
//   normal     text chunks, a tool call that asks session/request_permission (allowed: the file
//              scripted-agent.txt is written in the session's cwd), usage, end_turn
//   crash      a few chunks, then the process exits (code 70) in the middle of the turn
//   burst      N agent_message_chunk updates numbered in their text ("[0]", "[1]", ...), then end_turn
//   hang       one chunk, then nothing until session/cancel, then `cancelled`
//   garbage    a normal turn with lines that are not JSON-RPC between the valid ones
//   slow       a normal turn with DELAY ms between updates (default 50)
//   auth       session/prompt fails -32000 until `authenticate {methodId: 'scripted-login'}`
//   auth-new   session/new fails -32000 until then
//   refuse     ends the turn with `refusal`
//   foreign    an update and a permission request naming another session id, then its own
//              text, saying how the permission was answered
//   huge       one agent_message_chunk of N bytes of text (default 20 MB), then end_turn
//   bulk       N agent_message_chunk updates of 100 KB each, then end_turn
//   deep       a tool_call whose rawInput nests N levels deep (default 5000), written past the
//              SDK, then a chunk and end_turn
//   overlong   one update on a single line longer than the SDK's 32 MiB limit, then waits
//   no-init    never answers `initialize` (with SCRIPTED_AGENT_NO_INIT_WHILE=<file>: only while that
//              file exists, so a test can let a later start through)
//
// Other settings: SCRIPTED_AGENT_BURST (N, 100000), SCRIPTED_AGENT_CHUNKS (normal text chunks, 3),
// SCRIPTED_AGENT_DELAY_MS (between updates, 0), SCRIPTED_AGENT_STATE (a folder where sessions are
// kept, so session/load works across processes), SCRIPTED_AGENT_NO_STEERING=1 (no steering).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const settings = { ...process.env };
for (const arg of process.argv.slice(2)) {
  const m = /^--([\w-]+)=(.*)$/.exec(arg);
  if (m) settings[`SCRIPTED_AGENT_${m[1].toUpperCase().replaceAll('-', '_')}`] = m[2];
}
const BEHAVIOUR = settings.SCRIPTED_AGENT_BEHAVIOUR ?? 'normal';
const BURST = Number(settings.SCRIPTED_AGENT_BURST ?? 100_000);
const CHUNKS = Number(settings.SCRIPTED_AGENT_CHUNKS ?? 3);
const DELAY = Number(settings.SCRIPTED_AGENT_DELAY_MS ?? 0);
const STATE = settings.SCRIPTED_AGENT_STATE;
const STEERING = settings.SCRIPTED_AGENT_NO_STEERING !== '1';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let signedIn = false;

/** sessionId → { cwd, title, updatedAt, history: [{ role: 'user' | 'agent', text }], turn } */
const sessions = new Map();

function save(id, session) {
  if (STATE === undefined) return;
  mkdirSync(STATE, { recursive: true });
  const { turn: _turn, ...kept } = session;
  writeFileSync(join(STATE, `${id}.json`), JSON.stringify(kept));
}

function find(id) {
  const live = sessions.get(id);
  if (live !== undefined) return live;
  if (STATE === undefined) return undefined;
  try {
    const kept = JSON.parse(readFileSync(join(STATE, `${id}.json`), 'utf8'));
    const session = { ...kept, turn: null };
    sessions.set(id, session);
    return session;
  } catch {
    return undefined;
  }
}

function allSessions() {
  if (STATE !== undefined) {
    try {
      for (const name of readdirSync(STATE)) if (name.endsWith('.json')) find(name.slice(0, -5));
    } catch {
      // No folder yet.
    }
  }
  return [...sessions.entries()];
}

const configOptions = (mode) => [
  {
    id: 'mode',
    name: 'Mode',
    category: 'mode',
    type: 'select',
    currentValue: mode,
    options: [
      { value: 'default', name: 'Default' },
      { value: 'fast', name: 'Fast' },
    ],
  },
];

function promptText(blocks) {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The behaviour of one turn: the prompt's directive, else the process's. */
function behaviourOf(text) {
  const m = /\[\[([\w-]+)(?::(\d+))?\]\]/.exec(text);
  return m
    ? { name: m[1], n: m[2] === undefined ? undefined : Number(m[2]) }
    : { name: BEHAVIOUR, n: undefined };
}

const app = acp.agent({ name: 'scripted-agent' });

/** no-init: whether this process keeps `initialize` unanswered. */
function withholdsInit() {
  if (BEHAVIOUR !== 'no-init') return false;
  const file = settings.SCRIPTED_AGENT_NO_INIT_WHILE;
  if (file === undefined) return true;
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}

app.onRequest('initialize', async () => {
  if (withholdsInit()) await new Promise(() => {});
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: { name: 'scripted-agent', title: 'Scripted agent', version: '1.0.0' },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {} },
    },
    authMethods: [{ id: 'scripted-login', name: 'Scripted login', description: 'Signs in at once' }],
    ...(STEERING ? { _meta: { steering: { supported: true } } } : {}),
  };
});

app.onRequest('authenticate', ({ params }) => {
  if (params.methodId !== 'scripted-login')
    throw acp.RequestError.invalidParams({ methodId: params.methodId });
  signedIn = true;
  return {};
});

app.onRequest('session/new', ({ params }) => {
  if (BEHAVIOUR === 'auth-new' && !signedIn) throw acp.RequestError.authRequired(undefined, 'sign in first');
  const sessionId = `scripted-${process.pid}-${sessions.size + 1}-${Date.now().toString(36)}`;
  const session = {
    cwd: params.cwd,
    title: null,
    updatedAt: Date.now(),
    history: [],
    mode: 'default',
    turn: null,
  };
  sessions.set(sessionId, session);
  save(sessionId, session);
  return { sessionId, configOptions: configOptions(session.mode) };
});

app.onRequest('session/load', async ({ params, client }) => {
  const session = find(params.sessionId);
  if (session === undefined) throw acp.RequestError.resourceNotFound(params.sessionId);
  for (const entry of session.history) {
    await client.notify('session/update', {
      sessionId: params.sessionId,
      update: {
        sessionUpdate: entry.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
        content: { type: 'text', text: entry.text },
      },
    });
  }
  return { configOptions: configOptions(session.mode) };
});

app.onRequest('session/resume', ({ params }) => {
  const session = find(params.sessionId);
  if (session === undefined) throw acp.RequestError.resourceNotFound(params.sessionId);
  return { configOptions: configOptions(session.mode) };
});

app.onRequest('session/list', () => ({
  sessions: allSessions().map(([sessionId, s]) => ({
    sessionId,
    cwd: s.cwd,
    title: s.title,
    updatedAt: new Date(s.updatedAt).toISOString(),
  })),
}));

app.onRequest('session/set_config_option', ({ params }) => {
  const session = find(params.sessionId);
  if (session === undefined) throw acp.RequestError.resourceNotFound(params.sessionId);
  if (params.configId !== 'mode' || !['default', 'fast'].includes(params.value)) {
    throw acp.RequestError.invalidParams({ configId: params.configId, value: params.value });
  }
  session.mode = params.value;
  save(params.sessionId, session);
  return { configOptions: configOptions(session.mode) };
});

app.onNotification('session/cancel', ({ params }) => {
  sessions.get(params.sessionId)?.turn?.cancel();
});

const steeringParams = {
  parse(raw) {
    if (
      typeof raw !== 'object' ||
      raw === null ||
      typeof raw.sessionId !== 'string' ||
      !Array.isArray(raw.prompt)
    ) {
      throw acp.RequestError.invalidParams(raw, 'expected {sessionId, prompt}');
    }
    return raw;
  },
};

if (STEERING) {
  app.onRequest('_session/steering', steeringParams, async ({ params, client }) => {
    const session = find(params.sessionId);
    if (session === undefined) throw acp.RequestError.resourceNotFound(params.sessionId);
    const text = promptText(params.prompt);
    if (session.turn !== null) {
      session.turn.steer(text);
      return { outcome: 'injected' };
    }
    if (params._meta?.steering?.idleBehavior === 'promptRequired') {
      return { outcome: 'promptRequired', reason: 'noRunningTurn' };
    }
    // No turn to join: start one of its own (the client sent no session/prompt for it).
    runTurn(params.sessionId, session, params.prompt, client, new AbortController().signal).catch(() => {});
    return { outcome: 'startedNewTurn' };
  });
}

app.onRequest('session/prompt', ({ params, client, signal }) => {
  const session = find(params.sessionId);
  if (session === undefined) throw acp.RequestError.resourceNotFound(params.sessionId);
  return runTurn(params.sessionId, session, params.prompt, client, signal);
});

async function runTurn(sessionId, session, prompt, client, signal) {
  const text = promptText(prompt);
  const behaviour = behaviourOf(text);
  if ((behaviour.name === 'auth' || BEHAVIOUR === 'auth') && !signedIn) {
    throw acp.RequestError.authRequired(undefined, 'sign in first');
  }
  if (session.turn !== null) throw acp.RequestError.invalidRequest(undefined, 'a turn is already running');

  let cancelled = false;
  let wake = () => {};
  const steered = [];
  session.turn = {
    cancel() {
      cancelled = true;
      wake();
    },
    steer(t) {
      steered.push(t);
      wake();
    },
  };
  signal.addEventListener('abort', () => session.turn?.cancel(), { once: true });
  session.history.push({ role: 'user', text });
  session.title ??= text.slice(0, 40);
  const said = [];
  const delay = behaviour.name === 'slow' ? (behaviour.n ?? (DELAY || 50)) : DELAY;
  const garbage = behaviour.name === 'garbage';
  const GARBAGE = [
    'this line is not JSON',
    '{"jsonrpc":"2.0",',
    '42',
    '{"neither":"request nor response"}',
    '',
  ];
  let g = 0;

  const update = async (u) => {
    await client.notify('session/update', { sessionId, update: u });
    if (garbage) process.stdout.write(`${GARBAGE[g++ % GARBAGE.length]}\n`);
    if (delay > 0) await sleep(delay);
  };
  const say = async (t) => {
    said.push(t);
    await update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } });
  };
  const finish = (stopReason, usage) => {
    session.turn = null;
    if (said.length > 0) session.history.push({ role: 'agent', text: said.join('') });
    session.updatedAt = Date.now();
    save(sessionId, session);
    return usage === undefined ? { stopReason } : { stopReason, usage };
  };

  try {
    switch (behaviour.name) {
      case 'burst': {
        const n = behaviour.n ?? BURST;
        for (let i = 0; i < n; i++) {
          await client.notify('session/update', {
            sessionId,
            update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `[${i}]` } },
          });
        }
        said.push(`[0]..[${n - 1}]`);
        return finish('end_turn');
      }
      case 'crash': {
        for (let i = 0; i < (behaviour.n ?? 3); i++) await say(`partial ${i} `);
        // Let the chunks leave, then die in the middle of the turn.
        setTimeout(() => process.exit(70), 20);
        await new Promise(() => {});
        return finish('end_turn');
      }
      case 'hang': {
        await say('waiting');
        while (!cancelled) {
          if (steered.length > 0) await say(`heard: ${steered.shift()}`);
          else await new Promise((r) => (wake = r));
        }
        return finish('cancelled');
      }
      case 'foreign': {
        await client.notify('session/update', {
          sessionId: `${sessionId}-elsewhere`,
          update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'foreign text' } },
        });
        const asked = await client.request('session/request_permission', {
          sessionId: `${sessionId}-elsewhere`,
          toolCall: { toolCallId: 'foreign', title: 'Foreign', kind: 'other', status: 'pending' },
          options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
        });
        await say(`own text, foreign permission ${asked.outcome.outcome}`);
        return finish('end_turn');
      }
      case 'huge': {
        await say('x'.repeat(behaviour.n ?? 20_000_000));
        return finish('end_turn');
      }
      case 'bulk': {
        for (let i = 0; i < (behaviour.n ?? 300); i++) await say(`[${i}]${'b'.repeat(100_000)}`);
        return finish('end_turn');
      }
      case 'deep': {
        // Written by hand, past the SDK (whose own send refuses a value this deep; an agent of
        // another make need not), and as text (JSON.stringify itself gives up at some depth).
        const n = behaviour.n ?? 5000;
        const rawInput = `${'{"inner":'.repeat(n - 1)}{"bottom":true}${'}'.repeat(n - 1)}`;
        const u = `{"sessionUpdate":"tool_call","toolCallId":"deep","title":"Deep","kind":"other","rawInput":${rawInput}}`;
        process.stdout.write(
          `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":${JSON.stringify(sessionId)},"update":${u}}}\n`,
        );
        await say('after the deep one');
        return finish('end_turn');
      }
      case 'overlong': {
        await say('x'.repeat(33 * 1024 * 1024));
        await new Promise(() => {});
        return finish('end_turn');
      }
      case 'refuse': {
        await say('I cannot help with that.');
        return finish('refusal');
      }
      default: {
        await update({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: 'Thinking it over.' },
        });
        const n = behaviour.n ?? CHUNKS;
        for (let i = 0; i < n; i++) await say(`chunk ${i} `);
        const path = join(session.cwd, 'scripted-agent.txt');
        const toolCallId = `write-${Date.now().toString(36)}`;
        await update({
          sessionUpdate: 'tool_call',
          toolCallId,
          title: 'Write scripted-agent.txt',
          kind: 'edit',
          status: 'pending',
          locations: [{ path }],
          rawInput: { path, content: text },
        });
        const answer = await client.request('session/request_permission', {
          sessionId,
          toolCall: {
            toolCallId,
            title: 'Write scripted-agent.txt',
            kind: 'edit',
            status: 'pending',
            locations: [{ path }],
          },
          options: [
            { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
            { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
          ],
        });
        if (cancelled || answer.outcome.outcome === 'cancelled') {
          await update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
          return finish('cancelled');
        }
        const allowed = answer.outcome.optionId === 'allow' || answer.outcome.optionId === 'always';
        if (allowed) writeFileSync(path, text);
        await update({
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: allowed ? 'completed' : 'failed',
        });
        while (steered.length > 0) await say(`heard: ${steered.shift()} `);
        await say(allowed ? 'done.' : 'not written.');
        await update({ sessionUpdate: 'usage_update', used: 120, size: 200_000 });
        return finish('end_turn', { inputTokens: 100, outputTokens: 20, totalTokens: 120 });
      }
    }
  } finally {
    if (session.turn !== null && behaviour.name !== 'crash') session.turn = null;
  }
}

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
process.stdin.on('close', () => process.exit(0));
