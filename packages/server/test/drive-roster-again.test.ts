// A workstation whose roster changed (an adapter installed, config.json edited) says hello again
// on the channel that is up: the server takes the new roster and what it says is wrong with the
// config, answers nothing, and refuses a second hello that names another workstation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentFrame, INSTALL_PROGRESS_READY_KEY, ROSTER_PROBLEMS_KEY } from '@cairn/protocol';
import { afterEach, expect, it } from 'vitest';
import { AgentWireServer } from '../src/drive/agent-wire-server.js';
import { EventLog } from '../src/drive/event-log.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

it('takes a hello again as the new roster, and refuses one that names another workstation', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-roster-again-'));
  const log = new EventLog(join(dir, 'drive.sqlite'));
  const server = new AgentWireServer({ log, ticketOwner: (t) => ({ 'ticket-a': 'A', 'ticket-b': 'B' })[t] });
  cleanups.push(() => {
    server.close();
    log.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  const received: Record<string, unknown>[] = [];
  const side = server.attach({ send: (text) => received.push(JSON.parse(text)), close: () => {} });
  const send = (frame: Record<string, unknown>) => side.receive(JSON.stringify(frame));
  let changes = 0;
  server.onWorkstationsChanged(() => {
    changes += 1;
  });

  send({
    t: 'agent_hello',
    ticket: 'ticket-a',
    bridges: [{ key: 'codex', name: 'Codex', cliInstalled: false }],
  });
  expect(received.map((f) => f.t)).toEqual(['agent_ready']);
  // The server asks to hear install progress.
  expect(received[0]![INSTALL_PROGRESS_READY_KEY]).toBe(true);
  expect(server.roster('A')).toEqual([{ key: 'codex', name: 'Codex', cliInstalled: false }]);

  send({
    t: 'agent_hello',
    ticket: 'ticket-a',
    bridges: [
      { key: 'codex', name: 'Codex', cliInstalled: false, adapterInstalled: true, version: '2.6.0' },
      { key: 'mine', name: 'Mine', cliInstalled: true, adapterInstalled: true },
    ],
    [ROSTER_PROBLEMS_KEY]: ['config.json: agents.broken: command must be a string', 7],
  });
  expect(received.map((f) => f.t)).toEqual(['agent_ready']);
  expect(server.roster('A').map((b) => [b.key, b.adapterInstalled])).toEqual([
    ['codex', true],
    ['mine', true],
  ]);
  expect(server.rosterProblems('A')).toEqual(['config.json: agents.broken: command must be a string']);
  expect(changes).toBe(2);

  // Another workstation's ticket on this channel changes nothing.
  send({ t: 'agent_hello', ticket: 'ticket-b', bridges: [] } satisfies AgentFrame);
  expect(server.workstations()).toEqual(['A']);
  expect(server.roster('A')).toHaveLength(2);
  expect(server.refusals()).toEqual({ A: 1 });
});
