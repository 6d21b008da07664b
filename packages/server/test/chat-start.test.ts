// An agent that never answers `initialize` (a fault no real agent shows on demand, so the scripted
// agent plays it): the tab shows the history at once and the start as pending, a failed start is
// said once, and prompts do not each wait out a start of their own.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SCRIPTED_AGENT } from '../../runner/test/support/agents.js';
import { tempDir } from './helpers.js';
import { closeAll, type Ev } from './support/chat.js';
import { chatHarness } from './support/chat-harness.js';

afterEach(closeAll);

const OPEN_MS = 1500;

it('an agent that never answers initialize: history at once, the start pending, then one failure per try', async () => {
  const root = tempDir();
  const cairnHome = join(root, 'cairn');
  const project = join(root, 'project');
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  // The agent stays silent while this file exists.
  const stuck = join(root, 'stuck');
  writeFileSync(stuck, '');
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({
      agents: {
        mute: {
          name: 'Mute agent',
          command: process.execPath,
          args: [SCRIPTED_AGENT, '--behaviour=no-init', `--no-init-while=${stuck}`],
        },
      },
    }),
  );
  const h = await chatHarness({
    cairnHome,
    project,
    env: { HOME: root, PATH: process.env.PATH ?? '' },
    limits: { openMs: OPEN_MS },
    agents: ['mute'],
  });
  const id = h.newChat('mute');
  for (const [role, content] of [
    ['user', 'an earlier question'],
    ['assistant', 'an earlier answer'],
  ] as const) {
    h.chat.store.addMessage({
      id: `${role}-1`,
      sessionId: id,
      role,
      content,
      events: '',
      createdAt: Date.now(),
      images: [],
      outputTokens: null,
      durationMs: null,
      tokensPerSecond: null,
      ttftMs: null,
    });
  }

  const attachedAt = Date.now();
  const tab = await h.tab(id);
  const ready = await tab.ready();
  // The history comes first, long before the start could time out, and the start shows as pending.
  expect(Date.now() - attachedAt).toBeLessThan(OPEN_MS);
  expect(ready.history.map((m: Ev) => m.content)).toEqual(['an earlier question', 'an earlier answer']);
  await tab.until(() => tab.count('agent_notification') > 0, 'the pending start');
  expect(tab.events[0]!.type).toBe('session_ready');
  expect(tab.events.find((e) => e.type === 'agent_notification')).toMatchObject({
    level: 'info',
    message: 'Starting Mute agent…',
  });
  const errors = () => tab.events.filter((e) => e.type === 'error').map((e) => e.message as string);
  await tab.until(() => errors().length > 0, 'the failed start', OPEN_MS * 4);
  expect(errors()).toEqual([expect.stringMatching(/^mute did not start: initialize took longer than 2 s/)]);
  expect(errors()[0]).toMatch(/next message starts it again/);

  // A tab that opens now is told why, and does not start the agent again.
  const late = await h.tab(id);
  await late.ready();
  await late.until(() => late.count('error') > 0, 'the reason in the late tab');
  expect(late.events.find((e) => e.type === 'error')!.message).toMatch(/did not start/);

  // The next prompt tries once more; a prompt sent meanwhile waits in the queue, not for a start of
  // its own.
  const triedAt = Date.now();
  tab.send({ type: 'user_message', content: 'first try [[burst:2]]' });
  tab.send({ type: 'user_message', content: 'queued meanwhile [[burst:2]]' });
  await tab.until(() => errors().length > 1, 'the second failure', OPEN_MS * 4);
  expect(Date.now() - triedAt).toBeLessThan(OPEN_MS * 2 + 1000);
  expect(errors()[1]).toMatch(/did not start: .* The message was not sent; send it again to retry\./);
  expect(tab.count('agent_notification')).toBe(2);
  await tab.until(() => tab.count('queue_changed') > 0, 'the queue');
  expect(
    tab.events
      .filter((e) => e.type === 'queue_changed')
      .at(-1)!
      .queue.map((q: Ev) => q.content),
  ).toEqual(['queued meanwhile [[burst:2]]']);
  // Nothing else tries: no third start, and the chat is not busy.
  await new Promise((r) => setTimeout(r, OPEN_MS * 2));
  expect(tab.count('agent_notification')).toBe(2);
  expect(errors()).toHaveLength(2);
  expect(tab.events.filter((e) => e.type === 'run_state').at(-1)!.runState.busy).toBe(false);
  expect(tab.count('user_message_appended')).toBe(0);

  // Once the agent answers, the next prompt starts it, is answered, and the queue follows.
  rmSync(stuck);
  tab.send({ type: 'user_message', content: 'second try [[burst:2]]' });
  await tab.turnsEnded(2);
  expect(tab.events.filter((e) => e.type === 'user_message_appended').map((e) => e.message.content)).toEqual([
    'second try [[burst:2]]',
    'queued meanwhile [[burst:2]]',
  ]);
  // The tabs got the session again once the agent was up: what it can do, and its options.
  const refreshed = tab.events.filter((e) => e.type === 'session_ready').at(-1)!;
  expect(refreshed).toMatchObject({ supportsSteering: true, supportsImageInput: true });
  expect(refreshed.configOptions).not.toBeNull();
  expect(tab.events.filter((e) => e.type === 'message_end').map((e) => e.stopReason)).toEqual([
    'stop',
    'stop',
  ]);
}, 60_000);

it('a chosen config value the agent no longer takes: the user is told, and that prompt is not sent', async () => {
  const root = tempDir();
  const cairnHome = join(root, 'cairn');
  const project = join(root, 'project');
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({
      agents: { scripted: { name: 'Scripted', command: process.execPath, args: [SCRIPTED_AGENT] } },
    }),
  );
  const h = await chatHarness({
    cairnHome,
    project,
    env: { HOME: root, PATH: process.env.PATH ?? '' },
    agents: ['scripted'],
  });
  const id = h.newChat('scripted');
  // Chosen in an earlier run, and offered by that agent no more (this one has default and fast).
  h.chat.store.setConfigValue(id, 'mode', 'turbo');
  const tab = await h.tab(id);
  await tab.until(() => tab.count('error') > 0, 'the refusal');
  expect(tab.events.find((e) => e.type === 'error')!.message).toMatch(
    /This chat's Mode \(mode\) could not be set back to "turbo"/,
  );
  tab.send({ type: 'user_message', content: 'not this one [[burst:2]]' });
  await tab.until(() => tab.count('error') > 1, 'the prompt refused');
  expect(tab.events.filter((e) => e.type === 'error')[1]!.message).toMatch(
    /Mode \(mode\) could not be set back .* The message was not sent/,
  );
  expect(tab.count('user_message_appended')).toBe(0);
  // Told once, the person goes on with the agent's own setting.
  tab.send({ type: 'user_message', content: 'this one [[burst:2]]' });
  await tab.turnsEnded(1);
  expect(tab.events.filter((e) => e.type === 'user_message_appended').map((e) => e.message.content)).toEqual([
    'this one [[burst:2]]',
  ]);
  expect(h.chat.store.configValues(id)).toEqual([]);
}, 60_000);
