// cairn search and cairn show --at over the corpus: the hits are the daemon's `session_search`
// answer for the same query, whether a daemon runs or the command brings the index up itself.
import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '@cairn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../server/test/helpers.js';
import { corpus } from '../../transcript/test/corpus.js';
import { cairn, corpusEnv } from './run.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** The CLI without blocking this process, which may hold the daemon that must answer it. */
const cairnAsync = (args: string[], env: NodeJS.ProcessEnv) =>
  new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
    execFile(process.execPath, [bin, ...args], { env, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      done({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });

const QUERIES: Array<{ args: string[]; op: Record<string, unknown> }> = [
  { args: ['bead ready'], op: { query: 'bead ready' } },
  {
    args: ['mix', '--in', 'tools,outputs', '--limit', '7'],
    op: { query: 'mix', targets: ['tool_input', 'tool_output'], limit: 7 },
  },
  {
    args: ['"issue details"', '--agent', 'claude', '--project', 'spotter'],
    op: { query: '"issue details"', agents: ['claude-code'], cwd: 'spotter' },
  },
  {
    args: ['timer', '--in', 'prompts', '--agent', 'codex'],
    op: { query: 'timer', targets: ['prompt'], agents: ['codex'] },
  },
];

describe.skipIf(!corpus)('cairn search', () => {
  const env = corpusEnv();
  let server: Awaited<ReturnType<typeof startServer>>;
  let client: Client;
  const expected: unknown[] = [];

  beforeAll(async () => {
    // Without a daemon first: the command builds the index in CAIRN_HOME itself.
    for (const q of QUERIES) {
      const r = cairn(['search', ...q.args, '--json'], env);
      expect(r.stderr, q.args.join(' ')).toBe('');
      expect(r.status).toBe(0);
      expected.push(JSON.parse(r.stdout));
    }
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

  it('gives the hits of session_search for the same query, with and without a daemon', async () => {
    for (const [i, q] of QUERIES.entries()) {
      const reply = await client.request('session_search', q.op);
      expect(reply.ok, q.args.join(' ')).toBe(true);
      const op = { hits: reply.hits, partial: reply.partial };
      expect((op.hits as unknown[]).length, q.args.join(' ')).toBeGreaterThan(0);
      expect(expected[i], `without a daemon: ${q.args.join(' ')}`).toEqual(op);
      const r = await cairnAsync(['search', ...q.args, '--json'], env);
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout), `with the daemon: ${q.args.join(' ')}`).toEqual(op);
    }
  });

  it('prints one line per hit, the command that shows it, and its web address', async () => {
    const reply = await client.request('session_search', { query: 'bead ready' });
    const hits = reply.hits as Array<{ agent: string; sid: string; item_uuid: string; item_type: string }>;
    const r = await cairnAsync(['search', 'bead ready'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(hits.length * 3);
    const base = server.url.replace(/\?.*$/, '');
    hits.forEach((h, k) => {
      expect(lines[k * 3]).toMatch(
        new RegExp(`^${h.agent} +${h.sid.slice(0, 8)} .* ${h.item_type.replace(/[:]/g, '\\:')} `),
      );
      // Not a terminal: the matched words are plain, no escapes.
      expect(lines[k * 3]).not.toContain('\x1b');
      expect(lines[k * 3]!.toLowerCase()).toContain('bead');
      expect(lines[k * 3 + 1]).toMatch(
        new RegExp(`^    cairn show ${h.sid}( --agent-id \\S+)? --at ${h.item_uuid}$`),
      );
      expect(lines[k * 3 + 2]).toContain(`${base}#/s/${h.agent}/${h.sid}?item=${h.item_uuid}`);
    });
  });

  it('refuses what it cannot read', () => {
    expect(cairn(['search'], env).status).toBe(2);
    const bad = cairn(['search', 'x', '--in', 'files'], env);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("bad --in 'files'");
    expect(cairn(['search', 'x', '--since', 'yesterday'], env).status).toBe(2);
  });
});

describe.skipIf(!corpus)('cairn show --at', () => {
  const env = corpusEnv();

  it('prints the items around a hit, the hit marked, as its show line says', () => {
    const hits = JSON.parse(cairn(['search', 'bead ready', '--json'], env).stdout).hits as Array<{
      sid: string;
      item_uuid: string;
      agent_id?: string;
    }>;
    const shown = hits.slice(0, 3);
    expect(shown.length).toBeGreaterThan(0);
    for (const h of shown) {
      const lane = h.agent_id === undefined ? [] : ['--agent-id', h.agent_id];
      const r = cairn(['show', h.sid, ...lane, '--at', h.item_uuid, '--context', '2', '--json'], env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const items = r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { uuid: string });
      const at = items.findIndex((it) => it.uuid === h.item_uuid);
      expect(at).toBeGreaterThanOrEqual(0);
      expect(items.length).toBeLessThanOrEqual(5);
      expect(at).toBeLessThanOrEqual(2);
      const plain = cairn(['show', h.sid, ...lane, '--at', h.item_uuid, '--context', '1'], env);
      expect(plain.stdout.split('\n').filter((l) => l.startsWith('>'))).toHaveLength(1);
    }
  });

  it('says when the item is not in the session, and refuses --context without --at', () => {
    const r = cairn(['show', '4d5611e5', '--at', 'no-such-item'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no item no-such-item');
    expect(cairn(['show', '4d5611e5', '--context', '2'], env).status).toBe(2);
  });
});
