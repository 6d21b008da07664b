// A person's stars and tags over a real server: kept, listed and removed; still there after a
// restart and after the index is rebuilt from scratch; a tag with control characters refused; and
// the agent's folder left exactly as it was.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, homeEnv, serve, tempDir } from './helpers.js';

/** Every file under a folder with its size and modification time. */
function snapshot(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      const s = statSync(path);
      return `${path} ${s.size} ${s.mtimeMs}`;
    })
    .sort();
}

describe.skipIf(!corpus)('session marks', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('keeps stars and tags across a restart and an index rebuilt from nothing, and removes them', async () => {
    const { home, lines } = claudeSessionHome(10_000);
    const env = homeEnv(home);
    const state = tempDir('cairn-state-');
    const agentFiles = snapshot(join(home, '.claude'));
    server = await serve(env, { cairnHome: state });
    let client = await Client.open(server);
    const listed = await client.request('session_list', {});
    const head = (listed.sessions as { agent: string; sid: string }[])[0]!;
    const item = JSON.parse(lines.find((l) => l.includes('"type":"assistant"'))!) as { uuid: string };

    expect(await client.request('session_marks_read', {})).toMatchObject({ ok: true, marks: [] });
    const wrote = await client.request('session_marks_write', {
      agent: head.agent,
      sid: head.sid,
      starred: true,
      tags: ['review', 'ledger', 'review', ' spaced '],
      star_items: [{ item_uuid: item.uuid, item_type: 'message:out' }],
    });
    expect(wrote).toMatchObject({
      ok: true,
      marks: {
        agent: head.agent,
        sid: head.sid,
        starred: true,
        tags: ['ledger', 'review', 'spaced'],
        items: [{ item_uuid: item.uuid, item_type: 'message:out' }],
      },
    });
    await client.close();
    await server.close();

    // The index is a cache: removed, the next daemon rebuilds it from the agent's files.
    for (const f of readdirSync(state)) if (f.startsWith('index.sqlite')) rmSync(join(state, f));
    server = await serve(env, { cairnHome: state });
    client = await Client.open(server);
    const kept = await client.request('session_marks_read', { sid: head.sid });
    expect(kept).toMatchObject({
      ok: true,
      marks: [{ starred: true, tags: ['ledger', 'review', 'spaced'], items: [{ item_uuid: item.uuid }] }],
    });
    expect(await client.request('session_marks_read', { agent: 'codex' })).toMatchObject({ marks: [] });

    // Unstarring and emptying the tags leaves the item's star, then nothing.
    const partly = await client.request('session_marks_write', {
      agent: head.agent,
      sid: head.sid,
      starred: false,
      tags: [],
    });
    expect(partly).toMatchObject({ marks: { starred: false, tags: [], items: [{ item_uuid: item.uuid }] } });
    await client.request('session_marks_write', {
      agent: head.agent,
      sid: head.sid,
      unstar_items: [{ item_uuid: item.uuid, item_type: 'message:out' }],
    });
    expect(await client.request('session_marks_read', {})).toMatchObject({ ok: true, marks: [] });
    await client.close();

    // Nothing was written into the agent's folder; the marks are in cairn's own.
    expect(snapshot(join(home, '.claude'))).toEqual(agentFiles);
    expect(readdirSync(state)).toContain('marks.sqlite');
  });

  it('refuses a tag with control characters or blank, and a session it does not list', async () => {
    const { home } = claudeSessionHome(50);
    server = await serve(homeEnv(home), { cairnHome: tempDir('cairn-state-') });
    const client = await Client.open(server);
    const head = (
      (await client.request('session_list', {})).sessions as { agent: string; sid: string }[]
    )[0]!;
    for (const [tags, field] of [
      [['ok', 'new\nline'], '/tags/1'],
      [['\u0000'], '/tags/0'],
      [['esc\u001b[31m'], '/tags/0'],
      [['   '], '/tags/0'],
      [['x'.repeat(65)], '/tags/0'],
    ] as const) {
      const reply = await client.request('session_marks_write', { agent: head.agent, sid: head.sid, tags });
      expect(reply, JSON.stringify(tags)).toMatchObject({
        ok: false,
        error: { code: 'invalid_args', field },
      });
    }
    // Bidi and zero-width characters are kept as written: the UI shows them as code points.
    const bidi = 'invoice\u202Egnp.exe\u200B';
    expect(
      await client.request('session_marks_write', { agent: head.agent, sid: head.sid, tags: [bidi] }),
    ).toMatchObject({ ok: true, marks: { tags: [bidi] } });
    expect(
      await client.request('session_marks_write', {
        agent: head.agent,
        sid: 'no-such-session',
        starred: true,
      }),
    ).toMatchObject({ ok: false, error: { code: 'not_found', field: '/sid' } });
    expect(
      await client.request('session_marks_write', { agent: 'codex', sid: head.sid, starred: true }),
    ).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(
      readFileSync(join(home, '.claude', 'projects', '-work-spotter', 'subagent.jsonl'), 'utf8'),
    ).not.toContain('invoice');
    await client.close();
  });
});
