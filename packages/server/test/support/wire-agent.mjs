// An ACP agent built with the SDK for the faults a real agent cannot be made to show on demand.
// WIRE_AGENT_MODE: normal | permission | crash | hang | garbage | auth; WIRE_AGENT_CHUNKS: how
// many text chunks a turn streams; WIRE_AGENT_DELAY_MS: a pause before each chunk;
// WIRE_AGENT_STAMP=1: each chunk's text carries the time it was sent (`t1c0@<ms since the epoch> `),
// for the benchmark's latency. A prompt `run: <command line>` (or `run in <folder>: …`) asks the client to run it in a
// terminal and leaves it running (a dev server); `wait: <command line>` waits for its end and replies
// with its exit code and output (`exit:<code> output:<text>`). Both need the client's terminal
// capability; without it the reply is `no terminal`.
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const mode = process.env.WIRE_AGENT_MODE ?? 'normal';
// WIRE_AGENT_STUBBORN=1: the agent outlives the end of its stdin, as some real agents do.
if (process.env.WIRE_AGENT_STUBBORN === '1') setInterval(() => {}, 1000);
const chunks = Number(process.env.WIRE_AGENT_CHUNKS ?? 3);
const delayMs = Number(process.env.WIRE_AGENT_DELAY_MS ?? 0);
const stamp = process.env.WIRE_AGENT_STAMP === '1';
// WIRE_AGENT_RATE=N: a turn's chunks are sent at N a second, not as fast as they can be.
const rate = Number(process.env.WIRE_AGENT_RATE ?? 0);
// WIRE_AGENT_PARAGRAPH=N: every Nth chunk ends a paragraph (a blank line), as replies are written.
const paragraph = Number(process.env.WIRE_AGENT_PARAGRAPH ?? 0);
// WIRE_AGENT_NO_IMAGES=1: the agent declares no image input.
// WIRE_AGENT_LOOP_DONE_AT=N: from its Nth turn on, the reply ends with the loop's done marker.
const loopDoneAt = Number(process.env.WIRE_AGENT_LOOP_DONE_AT ?? 0);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let sessions = 0;
let clientTerminal = false;
let turns = 0;
const cancelled = new Set();

const text = (sessionId, value) => ({
  sessionId,
  update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: value } },
});

const app = acp
  .agent({ name: 'wire-agent' })
  .onRequest('initialize', (ctx) => {
    clientTerminal = ctx.params.clientCapabilities?.terminal === true;
    return {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: process.env.WIRE_AGENT_NO_IMAGES !== '1' },
        sessionCapabilities: { list: {} },
      },
      agentInfo: { name: 'wire-agent', version: '1.0.0' },
      authMethods: [{ id: 'wire-login', name: 'Wire login' }],
      _meta: { steering: { supported: true } },
    };
  })
  .onRequest('session/new', () => ({ sessionId: `wire-${process.pid}-${++sessions}` }))
  // Signing in with `wire-url` sends the person to an address first, as a browser login would.
  .onRequest('authenticate', async (ctx) => {
    if (ctx.params.methodId !== 'wire-url') return {};
    const answer = await ctx.client.request('elicitation/create', {
      mode: 'url',
      elicitationId: 'login-1',
      url: 'http://127.0.0.1:9/wire-login',
      message: 'Open this address to sign in',
      requestId: ctx.requestId ?? 0,
    });
    if (answer.action !== 'accept') throw new Error('sign-in declined');
    await sleep(50);
    await ctx.client.notify('elicitation/complete', { elicitationId: 'login-1' });
    return {};
  })
  .onRequest('session/list', (ctx) => ({
    sessions: [
      {
        sessionId: 'wire-old-1',
        cwd: ctx.params.cwd ?? '/',
        title: 'An older session',
        updatedAt: '2026-11-30T12:00:00.250Z',
      },
    ],
  }))
  .onRequest('session/load', async (ctx) => {
    await ctx.client.notify('session/update', text(ctx.params.sessionId, '[history]'));
    return {};
  })
  .onRequest('_session/steering', { parse: (p) => p }, () => ({ outcome: 'injected' }))
  .onNotification('session/cancel', (ctx) => {
    cancelled.add(ctx.params.sessionId);
  })
  .onRequest('session/prompt', async (ctx) => {
    const { sessionId } = ctx.params;
    // Each image of the prompt is acknowledged by its type and size, so a test sees it arrived.
    for (const block of ctx.params.prompt) {
      if (block.type === 'image')
        await ctx.client.notify(
          'session/update',
          text(sessionId, `image:${block.mimeType}:${block.data.length} `),
        );
      // A file the prompt carries is acknowledged by its name and address.
      if (block.type === 'resource_link')
        await ctx.client.notify('session/update', text(sessionId, `link:${block.name}:${block.uri} `));
    }
    turns += 1;
    cancelled.delete(sessionId);
    const asked = ctx.params.prompt.find((b) => b.type === 'text')?.text ?? '';
    const command = /^(run|wait)(?: in (\S+))?: (.*)$/s.exec(asked);
    if (command) {
      if (!clientTerminal) {
        await ctx.client.notify('session/update', text(sessionId, 'no terminal'));
        return { stopReason: 'end_turn' };
      }
      let terminalId;
      try {
        ({ terminalId } = await ctx.client.request('terminal/create', {
          sessionId,
          command: command[3],
          ...(command[2] ? { cwd: command[2] } : {}),
          outputByteLimit: 64,
        }));
      } catch (error) {
        await ctx.client.notify('session/update', text(sessionId, `refused:${error.message}`));
        return { stopReason: 'end_turn' };
      }
      if (command[1] === 'run') {
        await ctx.client.notify('session/update', text(sessionId, `started:${terminalId}`));
        return { stopReason: 'end_turn' };
      }
      const exit = await ctx.client.request('terminal/wait_for_exit', { sessionId, terminalId });
      const out = await ctx.client.request('terminal/output', { sessionId, terminalId });
      await ctx.client.request('terminal/release', { sessionId, terminalId });
      const reply = `exit:${exit.exitCode} truncated:${out.truncated} output:${out.output}`;
      await ctx.client.notify('session/update', text(sessionId, reply));
      return { stopReason: 'end_turn' };
    }
    if (mode === 'auth') throw acp.RequestError.authRequired();
    if (mode === 'hang') {
      while (!cancelled.has(sessionId)) await sleep(20);
      return { stopReason: 'cancelled' };
    }
    const started = performance.now();
    for (let i = 0; i < chunks; i++) {
      if (delayMs > 0) await sleep(delayMs);
      // Paced: chunk i is not sent before its time at `rate` a second (a few at a time, as timers allow).
      if (rate > 0) {
        const due = started + (i * 1000) / rate - performance.now();
        if (due > 1) await sleep(due);
      }
      if (cancelled.has(sessionId)) return { stopReason: 'cancelled' };
      if (mode === 'garbage' && i % 2 === 0) process.stdout.write('this is not json\n');
      const at = stamp ? `@${(performance.timeOrigin + performance.now()).toFixed(3)}` : '';
      const end = paragraph > 0 && (i + 1) % paragraph === 0 ? '\n\n' : '';
      await ctx.client.notify('session/update', text(sessionId, `t${turns}c${i}${at} ${end}`));
      if (mode === 'crash' && i === Math.floor(chunks / 2)) process.exit(3);
    }
    if (mode === 'permission') {
      const answer = await ctx.client.request('session/request_permission', {
        sessionId,
        toolCall: { toolCallId: 'call-1', title: 'Write notes.txt', kind: 'edit' },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      });
      const chosen = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : 'cancelled';
      await ctx.client.notify('session/update', text(sessionId, `permission:${chosen}`));
    }
    if (loopDoneAt > 0 && turns >= loopDoneAt)
      await ctx.client.notify('session/update', text(sessionId, '<LOOP_DONE>'));
    await ctx.client.notify('session/update', {
      sessionId,
      update: { sessionUpdate: 'usage_update', used: 1000 + turns, size: 200000 },
    });
    // WIRE_AGENT_NO_USAGE=1: the turn's answer carries no token counts, as some agents' answers do.
    if (process.env.WIRE_AGENT_NO_USAGE === '1') return { stopReason: 'end_turn' };
    return {
      stopReason: 'end_turn',
      usage: { inputTokens: 40, outputTokens: 2 * chunks, totalTokens: 40 + 2 * chunks },
    };
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
