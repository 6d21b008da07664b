// Discovery finds the sessions listing finds, from names, on the corpus and on bad homes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DiscoverEntry, ListEntry, SessionPlatform } from '../src/index.js';
import { discoverSessions, listSessions } from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';

async function both(platform: SessionPlatform, agent?: string) {
  const listed: ListEntry[] = [];
  const found: DiscoverEntry[] = [];
  const options = agent ? { agent } : {};
  for await (const e of listSessions(platform, options)) listed.push(e);
  for await (const e of discoverSessions(platform, options)) found.push(e);
  return { listed, found };
}

/**
 * Discovery gives a listed head as its agent, id and path, and a file the listing reports as a
 * failure as a session (reading it fails in its own right); other failures are the listing's.
 */
async function expectSame(platform: SessionPlatform, fileFailure: (ref: string) => boolean) {
  const { listed, found } = await both(platform);
  const heads = new Set(listed.flatMap((e) => ('ref' in e ? [] : [e.path])));
  const expected = listed.map((e) =>
    'ref' in e ? (fileFailure(e.ref) ? `session ${e.ref}` : `! ${e.ref}`) : `${e.agent} ${e.id} ${e.path}`,
  );
  const got = found.map((e) =>
    'ref' in e ? `! ${e.ref}` : heads.has(e.path) ? `${e.agent} ${e.id} ${e.path}` : `session ${e.path}`,
  );
  expect(got).toEqual(expected);
  return { listed, found };
}

describe.skipIf(!corpus)('discoverSessions on the corpus', () => {
  it('finds every listed session, in the listing order, with its agent and id', async () => {
    const { listed, found } = await expectSame(corpusPlatform(), () => false);
    expect(found.length).toBe(listed.length);
    expect(new Set(found.map((e) => ('ref' in e ? '' : e.agent)))).toEqual(
      new Set(['claude-code', 'codex', 'gemini-cli']),
    );
  });

  it('keeps to one agent when asked', async () => {
    const { listed, found } = await both(corpusPlatform(), 'codex');
    expect(found).toEqual(listed.map((e) => ('ref' in e ? e : { agent: e.agent, id: e.id, path: e.path })));
  });
});

describe('discoverSessions on bad homes', () => {
  const home = tempHome();
  const claude = join(home, '.claude/projects/-tmp-app');
  const rollouts = join(home, '.codex/sessions/2026/05/01');
  const sid = '11111111-2222-4333-8444-555555555555';
  const meta = (id: string, pad = 0) =>
    `${JSON.stringify({ timestamp: '2026-05-01T08:00:00.000Z', type: 'session_meta', payload: { id, cwd: '/app', timestamp: '2026-05-01T08:00:00.000Z', instructions: 'x'.repeat(pad) } })}\n`;
  const rollout = (name: string) => join(rollouts, `rollout-2026-05-01T08-00-00-${name}.jsonl`);
  mkdirSync(claude, { recursive: true });
  mkdirSync(rollouts, { recursive: true });
  const user = (sessionId: string) =>
    `${JSON.stringify({ type: 'user', sessionId, uuid: `u-${sessionId}`, timestamp: '2026-05-01T08:00:00.000Z', message: { role: 'user', content: 'hi' } })}\n`;
  writeFileSync(join(claude, `${sid}.jsonl`), user(sid));
  writeFileSync(join(claude, 'agent-beside.jsonl'), user(sid));
  writeFileSync(join(claude, 'agent-loose.jsonl'), user('someone-else'));
  writeFileSync(join(claude, 'unknown.jsonl'), '{"type":"mystery-generation"}\n');
  writeFileSync(join(claude, 'empty.jsonl'), '');
  writeFileSync(join(claude, 'garbage.jsonl'), Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
  mkdirSync(join(claude, 'folder.jsonl'));
  writeFileSync(rollout(sid), meta('other-id-in-meta'));
  writeFileSync(rollout('66666666-2222-4333-8444-555555555555'), `not json\n${meta('second-line-id')}`);
  writeFileSync(rollout('77777777-2222-4333-8444-555555555555'), meta('long-first-line', 40 * 1024));
  writeFileSync(rollout('88888888-2222-4333-8444-555555555555'), '');
  writeFileSync(
    rollout('99999999-2222-4333-8444-555555555555'),
    '{"type":"session_meta","payload":{"id":"no-newline"}}',
  );
  writeFileSync(rollout('aaaaaaaa-2222-4333-8444-555555555555'), '{"type":"from-the-future"}\n');
  writeFileSync(join(home, '.codex/sessions/2026/not-a-rollout'), 'x');
  // A folder that cannot be read: a failure of the listing and of discovery alike.
  writeFileSync(join(home, '.codex/archived_sessions'), 'x');
  const platform = tempPlatform(home);
  const isFile = (ref: string) => ref.endsWith('.jsonl');

  it('finds what the listing finds, failing heads included, without throwing', async () => {
    const { listed, found } = await expectSame(platform, isFile);
    const failed = listed.flatMap((e) => ('ref' in e ? [e.ref] : []));
    expect(failed.filter(isFile).length).toBeGreaterThanOrEqual(2);
    expect(failed.some((ref) => !isFile(ref))).toBe(true);
    const ids = found.flatMap((e) => ('ref' in e ? [] : [e.id]));
    expect(ids).toEqual(
      expect.arrayContaining(['other-id-in-meta', 'second-line-id', 'long-first-line', 'no-newline']),
    );
    // The subagent file that names the session joins it; the other one is a session of its own.
    expect(ids).toContain('agent-loose');
    expect(ids).not.toContain('agent-beside');
  });
});
