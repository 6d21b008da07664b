// The chat over the real server: the JSON API, the /chat socket, and a scripted ACP agent (built
// with the SDK) declared in $CAIRN_HOME/config.json and run by the server's local workstation.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../src/chat/chat-session.js';
import { turnTiming } from '../src/chat/chat-session.js';
import { RunTracker, resolvePhase } from '../src/chat/run-state.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { chatServer, closeAll, type Ev, onCleanup, openTab, WIRE_AGENT } from './support/chat.js';

afterEach(closeAll);

/** A fake clock for the interval scheduler: time moves only when the test says. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 1_000_000;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  return {
    now: () => now,
    setTimeout: (fn, ms) => {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => {
      timers.delete(id as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at <= now) {
          timers.delete(id);
          t.fn();
        }
      }
    },
  };
}

describe('run state', () => {
  it('resolves the phase by precedence: retrying > compacting > looping > streaming > queued > idle', () => {
    const none = { streaming: false, retrying: false, compacting: false, looping: false, queued: false };
    const table: [Partial<typeof none>, string][] = [
      [{}, 'idle'],
      [{ queued: true }, 'queued'],
      [{ queued: true, streaming: true }, 'streaming'],
      [{ streaming: true, looping: true }, 'looping'],
      [{ looping: true, compacting: true }, 'compacting'],
      [{ compacting: true, retrying: true }, 'retrying'],
      [{ retrying: true, queued: true, streaming: true, looping: true, compacting: true }, 'retrying'],
    ];
    for (const [flags, phase] of table) expect(resolvePhase({ ...none, ...flags })).toBe(phase);
  });

  it('counts queued as not busy and raises the generation only when a new logical run begins', () => {
    const run = new RunTracker();
    const queued = run.set({ queued: true })!;
    expect(queued).toMatchObject({ busy: false, phase: 'queued' });
    run.startRun();
    const streaming = run.set({ streaming: true })!;
    expect(streaming.busy).toBe(true);
    expect(streaming.generation).toBe(queued.generation + 1);
    expect(streaming.runId).not.toBe(queued.runId);
    expect(run.set({ streaming: true })).toBeUndefined();
    // Flag changes within the run (a retry, compaction, the end) keep its generation and its id.
    const retrying = run.set({ retrying: true })!;
    const idle = run.set({ retrying: false, streaming: false })!;
    for (const s of [retrying, idle])
      expect(s).toMatchObject({ generation: streaming.generation, runId: streaming.runId });
    run.startRun();
    expect(run.state().generation).toBe(streaming.generation + 1);
  });

  it('computes time to first token, the generation window and tokens per second as the seed defines them', () => {
    expect(turnTiming({ startedAt: 1000, firstDeltaAt: 1250 }, 3250, { outputTokens: 100 })).toEqual({
      ttftMs: 250,
      durationMs: 2000,
      tokensPerSecond: 50,
    });
    expect(turnTiming({ startedAt: 1000 }, 3000, { outputTokens: 10 })).toEqual({
      ttftMs: null,
      durationMs: null,
      tokensPerSecond: null,
    });
    expect(
      turnTiming({ startedAt: 0, firstDeltaAt: 10 }, 10, { outputTokens: 5 }).tokensPerSecond,
    ).toBeNull();
  });
});

describe('the chat API', () => {
  it('refuses a relative, missing or non-folder project path, and returns one project per folder', async () => {
    const c = await chatServer();
    expect((await c.api('POST', '/api/projects', { path: 'relative/dir' })).status).toBe(400);
    expect((await c.api('POST', '/api/projects', { path: join(c.project, 'nope') })).body.error).toMatch(
      /no such folder/,
    );
    const a = await c.api('POST', '/api/projects', { path: c.project });
    const b = await c.api('POST', '/api/projects', { path: `${c.project}/` });
    expect(a.body.project.id).toBe(b.body.project.id);
    expect(
      (await c.api('POST', '/api/sessions', { projectId: a.body.project.id, agent: 'nobody' })).status,
    ).toBe(400);
    const agents = await c.api('GET', '/api/agents');
    expect(agents.body.agents.map((x: { key: string }) => x.key)).toContain('wire');
  });
});

describe('a chat', () => {
  it('streams a turn as the seed’s events, persists it, and a second tab mid-turn sees every delta once', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '30', WIRE_AGENT_DELAY_MS: '15' });
    const id = await c.newChat();
    const one = await c.tab(id);
    await one.ready();
    // The state comes at once, and again once the agent is up, with what it can do.
    await one.until(() => one.count('session_ready') > 1, 'the agent up');
    const ready = one.events.filter((e) => e.type === 'session_ready').at(-1)!;
    expect(ready).toMatchObject({ agent: 'wire', supportsSteering: true, history: [], currentTurn: null });
    one.send({ type: 'user_message', content: 'Tell me a story' });
    await one.until(() => one.count('text_delta') >= 5, 'some deltas');
    const two = await c.tab(id);
    const late = await two.ready();
    await one.turnsEnded(1);
    await two.turnsEnded(1);

    const deltas = (events: Ev[]) => events.filter((e) => e.type === 'text_delta').map((e) => e.delta);
    const expected = Array.from({ length: 30 }, (_, i) => `t1c${i} `);
    expect(deltas(one.events)).toEqual(expected);
    // The late tab: the buffered turn from session_ready, then the live rest, with no gap or repeat.
    expect([...deltas(late.currentTurn.events), ...deltas(two.events)]).toEqual(expected);
    expect(late.history.map((m: Ev) => m.role)).toEqual(['user']);

    const appended = one.events.filter((e) => e.type === 'user_message_appended');
    expect(appended).toHaveLength(1);
    expect(appended[0]).toMatchObject({
      isFirstUserMessage: true,
      message: { role: 'user', content: 'Tell me a story' },
    });
    expect(one.events.find((e) => e.type === 'session_renamed')?.title).toBe('Tell me a story');
    const usage = one.events.find((e) => e.type === 'token_usage')!;
    expect(usage.usage).toMatchObject({ inputTokens: 40, outputTokens: 60 });
    expect(usage.ttftMs).toBeGreaterThanOrEqual(0);
    expect(usage.contextWindowMax).toBe(200000);
    const phases = one.events.filter((e) => e.type === 'run_state').map((e) => e.runState.phase);
    expect(phases).toEqual(['streaming', 'idle']);

    const third = await c.tab(id);
    const after = await third.ready();
    expect(after.history.map((m: Ev) => m.role)).toEqual(['user', 'assistant']);
    expect(after.history[1].content).toBe(expected.join(''));
    expect(after.history[1].sequence).toBe(2);
    expect(after.history[1].outputTokens).toBe(60);
    expect(after.currentTurn).toBeNull();
  });

  it('queues a message sent while busy and sends it after the turn', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '10', WIRE_AGENT_DELAY_MS: '20' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'first' });
    await tab.until(() => tab.count('text_delta') >= 1, 'streaming');
    tab.send({ type: 'user_message', content: 'second' });
    await tab.until(() => tab.count('queue_changed') >= 1, 'the queue');
    expect(tab.events.find((e) => e.type === 'queue_changed')!.queue.map((q: Ev) => q.content)).toEqual([
      'second',
    ]);
    await tab.turnsEnded(2);
    const prompts = tab.events
      .filter((e) => e.type === 'user_message_appended')
      .map((e) => e.message.content);
    expect(prompts).toEqual(['first', 'second']);
    expect(tab.events.filter((e) => e.type === 'queue_changed').at(-1)!.queue).toEqual([]);
  });

  it('Stop ends a running turn aborted and the chat is free again', async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'hang' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'wait forever' });
    await tab.until(() => tab.events.some((e) => e.type === 'run_state' && e.runState.busy), 'busy');
    tab.send({ type: 'stop' });
    await tab.turnsEnded(1);
    expect(tab.events.find((e) => e.type === 'message_end')).toMatchObject({ stopReason: 'aborted' });
    expect(tab.events.filter((e) => e.type === 'run_state').at(-1)!.runState).toMatchObject({
      busy: false,
      phase: 'idle',
    });
  });

  it('shows a permission request in every tab; the first answer wins and both see it settled', async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'permission', WIRE_AGENT_CHUNKS: '1' });
    const id = await c.newChat();
    const one = await c.tab(id);
    const two = await c.tab(id);
    await one.ready();
    await two.ready();
    one.send({ type: 'user_message', content: 'write it' });
    await one.until(() => one.count('permission_request') > 0, 'the request');
    await two.until(() => two.count('permission_request') > 0, 'the request in the second tab');
    const asked = two.events.find((e) => e.type === 'permission_request')!;
    expect(asked.options.map((o: Ev) => o.name)).toEqual(['Allow', 'Reject']);
    two.send({ type: 'permission_answer', requestId: asked.requestId, optionId: 'reject' });
    one.send({ type: 'permission_answer', requestId: asked.requestId, optionId: 'allow' });
    await one.turnsEnded(1);
    for (const tab of [one, two]) {
      await tab.until(() => tab.count('permission_settled') > 0, 'settled');
      expect(tab.events.find((e) => e.type === 'permission_settled')).toMatchObject({
        optionId: 'reject',
        by: 'answer',
      });
    }
    expect(one.events.filter((e) => e.type === 'text_delta').map((e) => e.delta)).toContain(
      'permission:reject',
    );
    // A tab opened afterwards (a reload) still shows the card, as it was settled.
    const later = await c.tab(id);
    const ready = await later.ready();
    expect(ready.pendingPermissions).toEqual([]);
    expect(ready.settledPermissions).toEqual([{ request: asked, optionId: 'reject', by: 'answer' }]);
  });

  it('steers a running turn through the agent and shows the message once', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '20', WIRE_AGENT_DELAY_MS: '20' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'go' });
    await tab.until(() => tab.count('text_delta') >= 1, 'streaming');
    tab.send({ type: 'steer', content: 'and mind the tests' });
    await tab.until(() => tab.count('steer_result') > 0, 'the steer');
    expect(tab.events.find((e) => e.type === 'steer_result')).toMatchObject({
      ok: true,
      outcome: 'injected',
    });
    await tab.turnsEnded(1);
    expect(
      tab.events.filter((e) => e.type === 'user_message_appended').map((e) => e.message.content),
    ).toEqual(['go', 'and mind the tests']);
  });

  it('a loop runs until the agent writes <LOOP_DONE>, and stops at its cap otherwise', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '1', WIRE_AGENT_LOOP_DONE_AT: '3' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'polish it', loop: true, loopMaxIterations: 5 });
    await tab.until(() => tab.count('loop_complete') > 0, 'the loop to finish');
    expect(tab.events.find((e) => e.type === 'loop_complete')).toMatchObject({ iterations: 3 });
    expect(tab.count('loop_iteration')).toBe(3);

    const capped = await c.tab(await c.newChat());
    await capped.ready();
    capped.send({ type: 'user_message', content: 'forever', loop: true, loopMaxIterations: 2 });
    // This agent writes the marker only from its third turn on; the cap of 2 comes first.
    await capped.until(() => capped.count('loop_max_iterations') > 0, 'the cap');
    expect(capped.events.find((e) => e.type === 'loop_max_iterations')).toMatchObject({ iterations: 2 });
    expect(capped.count('loop_complete')).toBe(0);
  });

  it('an interval tick while the session is busy is skipped', async () => {
    const clock = fakeClock();
    const c = await chatServer({ WIRE_AGENT_MODE: 'hang' }, clock);
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'check the build', intervalMinutes: 5 });
    await tab.until(() => tab.count('interval_launched') > 0, 'the first launch');
    await tab.until(() => tab.events.some((e) => e.type === 'run_state' && e.runState.busy), 'busy');
    clock.advance(5 * 60_000);
    await tab.until(() => tab.count('interval_skipped') > 0, 'a skipped tick');
    expect(tab.events.find((e) => e.type === 'interval_skipped')).toMatchObject({ reason: 'busy' });
    tab.send({ type: 'user_message', content: '', loopControl: 'stop' });
    await tab.until(() => tab.count('interval_stopped') > 0, 'the stop');
    tab.send({ type: 'stop' });
    await tab.turnsEnded(1);
  });

  it('an agent without credentials gives the sign-in card with its methods', async () => {
    const c = await chatServer({ WIRE_AGENT_MODE: 'auth' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'hi' });
    await tab.until(() => tab.count('sign_in_required') > 0, 'the sign-in card');
    expect(tab.events.find((e) => e.type === 'sign_in_required')).toMatchObject({
      agent: 'wire',
      methods: [{ id: 'wire-login', name: 'Wire login' }],
    });
  });
});

describe('images and restarts', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex').toString(
    'base64',
  );

  it('an image reaches an agent that takes images; one that does not, or one too large, is refused with a message', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '1' });
    const tab = await c.tab(await c.newChat());
    await tab.ready();
    tab.send({ type: 'user_message', content: 'look', images: [{ data: PNG, mimeType: 'image/png' }] });
    await tab.turnsEnded(1);
    expect(tab.events.filter((e) => e.type === 'text_delta').map((e) => e.delta)).toContain(
      `image:image/png:${PNG.length} `,
    );
    tab.send({
      type: 'user_message',
      content: 'big',
      images: [{ data: 'A'.repeat(768 * 1024 + 1), mimeType: 'image/png' }],
    });
    await tab.until(
      () => tab.events.some((e) => e.type === 'error' && /refused/.test(e.message)),
      'the refusal',
    );

    const blind = await chatServer({ WIRE_AGENT_CHUNKS: '1', WIRE_AGENT_NO_IMAGES: '1' });
    const other = await blind.tab(await blind.newChat());
    await other.ready();
    other.send({ type: 'user_message', content: 'look', images: [{ data: PNG, mimeType: 'image/png' }] });
    await other.until(() => other.count('error') > 0, 'the refusal');
    expect(other.events.find((e) => e.type === 'error')!.message).toMatch(/does not take images/);
    expect(other.count('user_message_appended')).toBe(0);
  });

  it('the server restarted mid-turn: the turn shows an error and the session continues', async () => {
    const root = tempDir();
    const cairnHome = join(root, 'cairn');
    const project = join(root, 'project');
    mkdirSync(cairnHome, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(cairnHome, 'config.json'),
      JSON.stringify({ agents: { wire: { command: process.execPath, args: [WIRE_AGENT] } } }),
    );
    const start = async (mode: string) => {
      const server = await serve(
        { ...homeEnv(root), PATH: process.env.PATH ?? '', WIRE_AGENT_MODE: mode },
        { cairnHome },
      );
      await server.drive.wire.waitForWorkstation('local');
      for (let i = 0; i < 100 && !server.drive.wire.roster('local').some((b) => b.key === 'wire'); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      return server;
    };
    const first = await start('hang');
    const headers = { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${first.port}`;
    const p = await (
      await fetch(`${base}/api/projects`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ path: project }),
      })
    ).json();
    const s = await (
      await fetch(`${base}/api/sessions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ projectId: p.project.id, agent: 'wire' }),
      })
    ).json();
    const before = await openTab(
      `ws://127.0.0.1:${first.port}/chat?session=${s.session.id}&token=${first.token}`,
    );
    await before.ready();
    before.send({ type: 'user_message', content: 'a long job' });
    await before.until(() => before.events.some((e) => e.type === 'run_state' && e.runState.busy), 'busy');
    await first.close();

    const second = await start('normal');
    onCleanup(() => second.close());
    const after = await openTab(
      `ws://127.0.0.1:${second.port}/chat?session=${s.session.id}&token=${second.token}`,
    );
    const ready = await after.ready();
    expect(ready.history.map((m: Ev) => m.role)).toEqual(['user', 'system']);
    expect(ready.history[1].content).toMatch(/reply was lost/);
    expect(ready.runState.busy).toBe(false);
    after.send({ type: 'user_message', content: 'again' });
    await after.turnsEnded(1);
    expect(after.events.find((e) => e.type === 'message_end')).toMatchObject({ stopReason: 'stop' });
  });
});
