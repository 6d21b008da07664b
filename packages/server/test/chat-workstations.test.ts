// The chat drives any workstation, not only the daemon's own: one connected from another process is
// listed with its agents, a chat runs on it, and when it goes away its sessions say so and keep
// their history.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { issueTicket } from '../src/index.js';
import { tempDir } from './helpers.js';
import { chatServer, closeAll, onCleanup } from './support/chat.js';
import { startWorkstationProcess } from './support/workstation-process.js';

afterEach(closeAll);

it('lists every workstation with its agents, runs a chat on a remote one, and marks its sessions offline when it leaves', async () => {
  const c = await chatServer();
  const ticket = issueTicket(c.server.home, 'laptop');
  // Known by its ticket before it ever connects: listed, offline, with no agents.
  let listed = await c.api('GET', '/api/workstations');
  expect(listed.body.workstations).toEqual([
    expect.objectContaining({ name: 'local', local: true, online: true }),
    { name: 'laptop', local: false, online: false, agents: [] },
  ]);

  const stationHome = join(tempDir(), 'laptop');
  const station = startWorkstationProcess({
    serverUrl: `http://127.0.0.1:${c.server.port}`,
    ticket,
    cairnHome: stationHome,
    env: { WIRE_AGENT_CHUNKS: '4' },
    onCleanup,
  });
  const wire = c.server.drive.wire;
  expect(await wire.waitForWorkstation('laptop', 20_000)).toBe(true);
  listed = await c.api('GET', '/api/workstations');
  const laptop = listed.body.workstations.find((w: { name: string }) => w.name === 'laptop');
  expect(laptop).toMatchObject({ local: false, online: true });
  expect(laptop.agents.map((a: { key: string }) => a.key)).toContain('wire');
  expect((await c.api('GET', '/api/agents?workstation=laptop')).body.agents).toEqual(laptop.agents);

  // A folder on the other machine: not checked here, where it does not exist.
  const folder = join(stationHome, 'work');
  mkdirSync(folder);
  const project = await c.api('POST', '/api/projects', { path: folder, workstation: 'laptop' });
  expect(project.status).toBe(200);
  const created = await c.api('POST', '/api/sessions', {
    projectId: project.body.project.id,
    agent: 'wire',
    workstation: 'laptop',
  });
  expect(created.status).toBe(200);
  expect(created.body.session).toMatchObject({ workstation: 'laptop', workstationOnline: true });
  const id = created.body.session.id as string;

  const tab = await c.tab(id);
  await tab.ready();
  tab.send({ type: 'user_message', content: 'hello over there' });
  await tab.turnsEnded(1);
  expect(tab.events.filter((e) => e.type === 'text_delta').map((e) => e.delta)).toEqual([
    't1c0 ',
    't1c1 ',
    't1c2 ',
    't1c3 ',
  ]);
  // It ran on the laptop: its journal is there, and the local workstation has none of it.
  expect(c.server.drive.local?.inventory().map((s) => s.sessionRef)).not.toContain(id);

  const gone = new Promise((r) => station.once('exit', r));
  station.kill('SIGTERM');
  await gone;
  for (let i = 0; i < 100 && wire.workstations().includes('laptop'); i++)
    await new Promise((r) => setTimeout(r, 50));
  const sessions = await c.api('GET', '/api/sessions');
  expect(sessions.body.sessions.find((s: { id: string }) => s.id === id)).toMatchObject({
    workstation: 'laptop',
    workstationOnline: false,
    messageCount: 2,
  });
  listed = await c.api('GET', '/api/workstations');
  expect(listed.body.workstations.find((w: { name: string }) => w.name === 'laptop')).toMatchObject({
    online: false,
    agents: [],
  });
  // No new chat on a machine that is not there, with a reason.
  const refused = await c.api('POST', '/api/sessions', {
    projectId: project.body.project.id,
    agent: 'wire',
    workstation: 'laptop',
  });
  expect(refused).toEqual({ status: 400, body: { error: 'workstation laptop is not connected' } });
  // A tab still gets the history.
  const later = await c.tab(id);
  const ready = await later.ready();
  expect(ready.history.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
}, 90_000);
