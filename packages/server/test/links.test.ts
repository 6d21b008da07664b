// Links between sessions over a real server: none before any is made, then read from either end,
// narrowed by agent and session, and still there after a restart; a damaged links file is an error
// that names it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
