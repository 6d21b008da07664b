// Reopening a Gemini CLI session (`--resume`, ACP `session/load`) leaves a second file for the same
// id, named by the minute of the reopening, holding headers and the start-up context only; the
// conversation goes on in the first file. The listing shows such a session once.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { ListEntry } from '../../src/adapter.js';
import { geminiCliAdapter } from '../../src/adapters/gemini-cli/index.js';
import { nodePlatform } from '../../src/platform-node.js';
import { adapterContext } from '../../src/read.js';

const ID = '0b23371a-ce2e-4b1c-81a0-44af5d94d9ce';
const OTHER = '2cca716a-8d4e-4ed5-a4b6-84b2232603e0';

const header = (sessionId: string, at: string) =>
  JSON.stringify({ sessionId, projectHash: 'f3c1', startTime: at, lastUpdated: at, kind: 'main' });

/** What Gemini CLI 0.61 writes when it opens a chat before the session it reopens is read. */
const reopenStub = (sessionId: string, at: string) =>
  [
    header(sessionId, at),
    JSON.stringify({
      $set: {
        messages: [
          {
            id: 'd04923d38bb0f6017037e74183378ef4',
            timestamp: at,
            type: 'user',
            content: [{ text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' }],
          },
        ],
        lastUpdated: at,
      },
    }),
    '',
  ].join('\n');

const conversation = (sessionId: string, at: string, prompt: string) =>
  [
    header(sessionId, at),
    JSON.stringify({ id: 'u1', timestamp: at, type: 'user', content: [{ text: prompt }] }),
    JSON.stringify({ id: 'g1', timestamp: at, type: 'gemini', content: 'Sure.' }),
    '',
  ].join('\n');

async function listed(files: Record<string, string>): Promise<{ id: string; file: string }[]> {
  const home = mkdtempSync(join(tmpdir(), 'cairn-gemini-reopen-'));
  const chats = join(home, '.gemini', 'tmp', 'proj', 'chats');
  mkdirSync(chats, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(chats, name), text);
  const platform = nodePlatform({ homeDir: home, env: { HOME: home } });
  const out: ListEntry[] = [];
  for await (const e of geminiCliAdapter.list(adapterContext(platform), join(home, '.gemini'))) out.push(e);
  return out.map((e) =>
    'ref' in e ? { id: 'error', file: e.ref } : { id: e.id, file: e.path.slice(chats.length + 1) },
  );
}

it('lists a reopened session once, from the file that holds its conversation', async () => {
  expect(
    await listed({
      'session-2026-12-01T09-00-0b23371a.jsonl': conversation(ID, '2026-12-01T09:00:00Z', 'Build a timer'),
      'session-2026-12-06T01-49-0b23371a.jsonl': reopenStub(ID, '2026-12-06T01:49:00Z'),
      'session-2026-12-06T02-10-0b23371a.jsonl': reopenStub(ID, '2026-12-06T02:10:00Z'),
    }),
  ).toEqual([{ id: ID, file: 'session-2026-12-01T09-00-0b23371a.jsonl' }]);
});

it('still lists a session that has no conversation yet, once', async () => {
  expect(
    await listed({
      'session-2026-12-06T02-04-2cca716a.jsonl': reopenStub(OTHER, '2026-12-06T02:04:00Z'),
      'session-2026-12-06T02-05-2cca716a.jsonl': reopenStub(OTHER, '2026-12-06T02:05:00Z'),
    }),
  ).toEqual([{ id: OTHER, file: 'session-2026-12-06T02-04-2cca716a.jsonl' }]);
});

it('keeps every file of an id that holds a conversation', async () => {
  expect(
    await listed({
      'session-2026-12-01T09-00-0b23371a.jsonl': conversation(ID, '2026-12-01T09:00:00Z', 'one'),
      'session-2026-12-02T09-00-0b23371a.jsonl': conversation(ID, '2026-12-02T09:00:00Z', 'two'),
      'session-2026-12-06T02-04-2cca716a.jsonl': reopenStub(OTHER, '2026-12-06T02:04:00Z'),
    }),
  ).toEqual([
    { id: ID, file: 'session-2026-12-01T09-00-0b23371a.jsonl' },
    { id: ID, file: 'session-2026-12-02T09-00-0b23371a.jsonl' },
    { id: OTHER, file: 'session-2026-12-06T02-04-2cca716a.jsonl' },
  ]);
});
