// Links between sessions over a real server: none before any is made, then read from either end,
// narrowed by agent and session, and still there after a restart; a damaged links file is an error
// that names it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/index.js';
import { LinksStore, linksPath } from '../src/storage/links-store.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const handoff = {
  kind: 'handoff' as const,
  from: { agent: 'claude-code', sid: 'short' },
  to: { agent: 'codex', sid: '019c8a4d-8f45-7010-8b5d-7fad920aa6f9' },
  at_item: '87cfd146-38ca-48ef-96f2-3c893113b511',
  created_at: 1_770_000_000_000,
};
const fork = {
  kind: 'fork' as const,
  from: { agent: 'codex', sid: '019c8a4d-8f45-7010-8b5d-7fad920aa6f9' },
  to: { agent: 'codex', sid: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9' },
  at_item: 'L16',
  created_at: 1_770_000_100_000,
};

describe('session links', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('reads the links the CLI wrote, from either end, across a restart', async () => {
    const env = homeEnv(tempDir('cairn-home-'));
    const state = tempDir('cairn-state-');
    server = await serve(env, { cairnHome: state });
    let client = await Client.open(server);
    expect(await client.request('session_links_read', {})).toMatchObject({ ok: true, links: [] });

    // Written as `cairn handoff` writes them, with the daemon running.
    const store = new LinksStore(linksPath(state));
    store.add(handoff);
    store.add(fork);
    store.close();
    expect(await client.request('session_links_read', {})).toMatchObject({
      ok: true,
      links: [handoff, fork],
    });
    await client.close();
    await server.close();

    server = await serve(env, { cairnHome: state });
    client = await Client.open(server);
    // The codex session in the middle is the end of one link and the start of the other.
    expect(await client.request('session_links_read', { sid: handoff.to.sid })).toMatchObject({
      links: [handoff, fork],
    });
    expect(await client.request('session_links_read', { agent: 'claude-code' })).toMatchObject({
      links: [handoff],
    });
    expect(
      await client.request('session_links_read', { agent: 'claude-code', sid: fork.to.sid }),
    ).toMatchObject({ links: [] });
    await client.close();
  });

  it('keeps which way a link was made, and reads files from before it was kept', () => {
    const state = tempDir('cairn-state-');
    // A links file as cairn wrote it before links said which way they were made.
    const old = new Database(linksPath(state));
    old.exec(`CREATE TABLE session_links (
      kind TEXT NOT NULL, from_agent TEXT NOT NULL, from_sid TEXT NOT NULL,
      to_agent TEXT NOT NULL, to_sid TEXT NOT NULL, at_item TEXT, created_at INTEGER NOT NULL,
      PRIMARY KEY (from_agent, from_sid, to_agent, to_sid))`);
    old
      .prepare('INSERT INTO session_links VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run('handoff', 'claude-code', 'short', 'codex', handoff.to.sid, handoff.at_item, handoff.created_at);
    old.close();

    const agentFork = {
      kind: 'fork' as const,
      from: { agent: 'claude-code', sid: 'a8e1f0a2-7c51-4c1e-9d7f-0d6f1b2c3d4e' },
      to: { agent: 'claude-code', sid: 'b9f2a1b3-8d62-4d2f-8e80-1e7a2c3d4e5f' },
      at_item: 'c0a3b2c4-9e73-4e30-9f91-2f8b3d4e5f60',
      via: 'agent' as const,
      created_at: 1_770_000_200_000,
    };
    const store = new LinksStore(linksPath(state));
    store.add(agentFork);
    store.add({ ...fork, via: 'handoff' });
    // Oldest first; the row from the old file says nothing of the way.
    expect(store.read()).toEqual([handoff, { ...fork, via: 'handoff' }, agentFork]);
    store.close();
  });

  it('says which file it cannot read', async () => {
    const state = tempDir('cairn-state-');
    writeFileSync(join(state, 'links.sqlite'), 'not a database, just text that is long enough to be read');
    server = await serve(homeEnv(tempDir('cairn-home-')), { cairnHome: state });
    const client = await Client.open(server);
    const answer = await client.request('session_links_read', {});
    expect(answer).toMatchObject({ ok: false, error: { code: 'internal_error' } });
    expect(JSON.stringify(answer)).toContain(join(state, 'links.sqlite'));
    await client.close();
  });
});
