// `cairn sessions --tag/--starred` and `cairn search --tag`: the sessions a person marked, read from
// cairn's marks database, with no daemon running and with one that took the marks.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@cairn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarksStore } from '../../server/src/storage/marks-store.js';
import { Client } from '../../server/test/helpers.js';
import { corpus } from '../../transcript/test/corpus.js';
import { tempHome } from '../../transcript/test/homes.js';
import { cairn, corpusEnv } from './run.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** The CLI without blocking this process, which holds the daemon that must answer it. */
const cairnAsync = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, [bin, ...args], { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      done({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

interface Head {
  agent: string;
  id: string;
}
interface Hit {
  agent: string;
  sid: string;
  item_uuid: string;
  score: number;
}

// Sessions of three agents whose items hold the word searched for below.
const CLAUDE = { agent: 'claude-code', sid: '4d5611e5-241a-462a-8d15-5122611a9569' };
const CODEX = { agent: 'codex', sid: '019a085e-04c1-7f81-a09e-9555f6a1fb40' };
const GEMINI = { agent: 'gemini-cli', sid: '0b23371a-ce2e-4b1c-81a0-44af5d94d9ce' };
const WORD = 'file';

const ids = (heads: Head[]) => heads.map((h) => h.id);
const hitKey = (h: Hit) => `${h.agent} ${h.sid} ${h.item_uuid}`;

describe.skipIf(!corpus)('marks filters without a daemon', () => {
  const env = corpusEnv();
  const list = (...args: string[]): Head[] => {
    const r = cairn(['sessions', ...args, '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { sessions: Head[] }).sessions;
  };
  let all: Head[];

  beforeAll(() => {
    all = list();
    const store = new MarksStore(join(env.CAIRN_HOME!, 'marks.sqlite'));
    store.write(CLAUDE.agent, CLAUDE.sid, { tags: ['review'] });
    store.write(CODEX.agent, CODEX.sid, { tags: ['review', 'big'], starred: true });
    store.write(GEMINI.agent, GEMINI.sid, { starred: true });
    store.close();
  });

  it('lists the sessions carrying every tag given, or the star, in the listing order', () => {
    const inOrder = (...sids: string[]) => ids(all).filter((id) => sids.includes(id));
    expect(ids(list('--tag', 'review'))).toEqual(inOrder(CLAUDE.sid, CODEX.sid));
    expect(ids(list('--tag', 'review', '--tag', 'big'))).toEqual([CODEX.sid]);
    expect(ids(list('--starred'))).toEqual(inOrder(CODEX.sid, GEMINI.sid));
    expect(ids(list('--starred', '--tag', 'review'))).toEqual([CODEX.sid]);
    expect(ids(list('--tag', 'review', '--agent', 'codex'))).toEqual([CODEX.sid]);
    expect(ids(list('--tag', 'review', '--limit', '1'))).toEqual(inOrder(CLAUDE.sid, CODEX.sid).slice(0, 1));
    // A tag is matched whole, and a filter nothing carries says so.
    const none = cairn(['sessions', '--tag', 'revie'], env);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`none of ${all.length} sessions match --tag revie`);
  });

  it('refuses a blank tag, and reads no marks into being in a home that has none', () => {
    const blank = cairn(['sessions', '--tag', ' '], env);
    expect(blank.status).toBe(2);
    expect(blank.stderr).toContain("bad --tag ' '");
    const fresh = { ...env, CAIRN_HOME: join(tempHome(), '.cairn') };
    const r = cairn(['sessions', '--tag', 'review', '--json'], fresh);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).sessions).toEqual([]);
    expect(existsSync(join(fresh.CAIRN_HOME, 'marks.sqlite'))).toBe(false);
    const search = cairn(['search', WORD, '--tag', 'review'], fresh);
    expect(search.status).toBe(0);
    expect(search.stderr).toContain('no session is marked --tag review');
  });

  it("searches only the tagged sessions: the unfiltered search's hits in them, best first", () => {
    const search = (...args: string[]): Hit[] => {
      const r = cairn(['search', WORD, ...args, '--json'], env);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { hits: Hit[] }).hits;
    };
    const everywhere = search('--limit', '500');
    expect(everywhere.length).toBeLessThan(500);
    const tagged = new Set([`${CLAUDE.agent} ${CLAUDE.sid}`, `${CODEX.agent} ${CODEX.sid}`]);
    const wanted = everywhere.filter((h) => tagged.has(`${h.agent} ${h.sid}`));
    expect(wanted.length).toBeGreaterThan(0);
    expect(wanted.length).toBeLessThan(everywhere.length);
    const got = search('--tag', 'review', '--limit', '500');
    expect(got.map(hitKey).sort()).toEqual(wanted.map(hitKey).sort());
    expect(got.map((h) => h.score)).toEqual(wanted.map((h) => h.score));
    // The limit takes the best of them.
    const top = search('--tag', 'review', '--limit', '3');
    expect(top.map((h) => h.score)).toEqual(wanted.slice(0, 3).map((h) => h.score));
    // With --agent, only that agent's tagged sessions.
    const codex = search('--tag', 'review', '--agent', 'codex');
    expect(codex.length).toBeGreaterThan(0);
    expect(codex.every((h) => h.sid === CODEX.sid)).toBe(true);
  });
});

describe.skipIf(!corpus)('marks filters with a daemon running', () => {
  const env = corpusEnv();
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: Client;

  beforeAll(async () => {
    server = await startServer({
      env: env as Record<string, string>,
      homeDir: env.HOME!,
      cairnHome: env.CAIRN_HOME!,
      demo: false,
      port: 0,
      waitForIndex: true,
    });
    client = await Client.open(server);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('sees the tags and stars the daemon just wrote', async () => {
    const wrote = await client.request('session_marks_write', { ...CODEX, tags: ['live'], starred: true });
    expect(wrote.ok).toBe(true);
    const r = await cairnAsync(['sessions', '--tag', 'live', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(ids(JSON.parse(r.stdout).sessions)).toEqual([CODEX.sid]);
    const starred = await cairnAsync(['sessions', '--starred', '--json'], env);
    expect(ids(JSON.parse(starred.stdout).sessions)).toEqual([CODEX.sid]);
    const s = await cairnAsync(['search', WORD, '--tag', 'live', '--json'], env);
    expect(s.status, s.stderr).toBe(0);
    const hits = JSON.parse(s.stdout).hits as Hit[];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.agent === CODEX.agent && h.sid === CODEX.sid)).toBe(true);
    // Untagged in the daemon: gone from the filter at once.
    await client.request('session_marks_write', { ...CODEX, tags: [] });
    const after = await cairnAsync(['sessions', '--tag', 'live', '--json'], env);
    expect(JSON.parse(after.stdout).sessions).toEqual([]);
  });
});
