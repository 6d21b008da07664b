// Who can read what cairn keeps: every file it writes under $CAIRN_HOME is its owner's alone (0600,
// or 0700 for an executable) and every folder 0700, SQLite's -wal and -shm files included, and a
// home an older cairn left looser is tightened when the daemon starts.
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { issueTicket, type RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, homeEnv, serve, tempDir } from './helpers.js';
import { closeAll, openTab, WIRE_AGENT } from './support/chat.js';

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await closeAll();
  for (const stop of stops.splice(0).reverse()) await stop();
});

interface Entry {
  readonly path: string;
  readonly kind: 'file' | 'folder' | 'link';
  readonly mode: number;
}

/** Every entry under `root`, `root` included; links are listed, not followed. */
function walk(root: string): Entry[] {
  const st = lstatSync(root);
  const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'folder' : 'file';
  const here: Entry = { path: root, kind, mode: st.mode & 0o777 };
  if (kind !== 'folder') return [here];
  return [here, ...readdirSync(root).flatMap((name) => walk(join(root, name)))];
}

/** The entries whose mode lets anyone but the owner in; an empty list when the home is private. */
function loose(root: string): string[] {
  return walk(root)
    .filter((e) => (e.kind === 'folder' ? e.mode !== 0o700 : e.kind === 'file' && e.mode !== 0o600))
    .map((e) => `${e.path.slice(root.length) || '/'} ${e.mode.toString(8)}`);
}

/** A daemon over a home with one Claude Code session, the scripted agent declared as `wire`. */
async function daemon(cairnHome: string, home: string): Promise<RunningServer> {
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
  );
  const server = await serve({ ...homeEnv(home), PATH: process.env.PATH ?? '' }, { cairnHome });
  stops.push(() => server.close());
  return server;
}

describe('$CAIRN_HOME', () => {
  it('holds only owner-only files and folders after indexing, a dump, a chat with a dev process and a ticket', async () => {
    const { home } = claudeSessionHome(40);
    const cairnHome = join(home, 'cairn');
    const project = join(home, 'project');
    mkdirSync(project);
    const server = await daemon(cairnHome, home);
    const base = `http://127.0.0.1:${server.port}`;

    // The index and a dump.
    const client = await Client.open(server);
    stops.push(() => client.close());
    const list = await client.request('session_list');
    const [session] = list.sessions as { sid: string; agent: string }[];
    expect(session).toBeDefined();
    const dumped = await client.request('session_dump_write', { sid: session!.sid, agent: session!.agent });
    expect(dumped).toMatchObject({ ok: true });
    expect((dumped.path as string).startsWith(join(cairnHome, 'dumps'))).toBe(true);

    // A chat whose agent runs a command through a terminal: chat store, drive log, journal, log file.
    await server.drive.wire.waitForWorkstation('local');
    for (let i = 0; i < 100 && !server.drive.wire.roster('local').some((b) => b.key === 'wire'); i++)
      await new Promise((r) => setTimeout(r, 50));
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      // biome-ignore lint/suspicious/noExplicitAny: read field by field
      return (await res.json()) as any;
    };
    const { project: made } = await api('/api/projects', { path: project });
    const { session: chat } = await api('/api/sessions', { projectId: made.id, agent: 'wire' });
    const tab = await openTab(`ws://127.0.0.1:${server.port}/chat?session=${chat.id}&token=${server.token}`);
    await tab.ready();
    tab.send({ type: 'user_message', content: 'wait: echo built' });
    await tab.turnsEnded(1);

    issueTicket(server.home, 'laptop');

    // While it runs, SQLite's -wal and -shm files exist beside each database: they are private too.
    const names = walk(cairnHome).map((e) => e.path.slice(cairnHome.length + 1));
    for (const expected of [
      'index.sqlite',
      'index.sqlite-wal',
      'index.sqlite-shm',
      'chat.sqlite',
      'chat.sqlite-wal',
      'drive.sqlite',
      'drive.sqlite-wal',
      'journal.sqlite',
      'journal.sqlite-wal',
      'token',
      'daemon.json',
      'instance-id',
      'workstations.json',
      'terminals',
    ])
      expect(names).toContain(expected);
    expect(names.some((n) => n.startsWith('dumps/'))).toBe(true);
    expect(names.some((n) => /^terminals\/.+\.log$/.test(n))).toBe(true);
    expect(loose(cairnHome)).toEqual([]);

    await server.close();
    expect(loose(cairnHome)).toEqual([]);
  }, 60_000);

  it('is tightened when the daemon starts: folders and files an older cairn left readable by others', async () => {
    const home = tempDir();
    const cairnHome = join(home, 'cairn');
    mkdirSync(join(cairnHome, 'dumps'), { recursive: true, mode: 0o755 });
    mkdirSync(join(cairnHome, 'terminals', 'old'), { recursive: true, mode: 0o755 });
    mkdirSync(join(cairnHome, 'agents', 'codex', 'bin'), { recursive: true, mode: 0o755 });
    writeFileSync(join(cairnHome, 'dumps', 'a.dump.json'), '{}', { mode: 0o644 });
    writeFileSync(join(cairnHome, 'terminals', 'old', 'x.log'), 'x', { mode: 0o666 });
    writeFileSync(join(cairnHome, 'agents', 'codex', 'bin', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    for (const dir of ['', 'dumps', 'terminals', 'terminals/old', 'agents', 'agents/codex'])
      chmodSync(join(cairnHome, dir), 0o755);
    const server = await daemon(cairnHome, home);
    await server.close();

    const mode = (path: string) => lstatSync(join(cairnHome, path)).mode & 0o777;
    expect(mode('')).toBe(0o700);
    expect(mode('dumps')).toBe(0o700);
    expect(mode('dumps/a.dump.json')).toBe(0o600);
    expect(mode('terminals/old')).toBe(0o700);
    expect(mode('terminals/old/x.log')).toBe(0o600);
    expect(readFileSync(join(cairnHome, 'terminals', 'old', 'x.log'), 'utf8')).toBe('x');
    // The agents' installs are not walked at each start (they are tightened when installed), but
    // their folder is private, so nothing inside is reachable by others.
    expect(mode('agents')).toBe(0o700);
    expect(mode('agents/codex/bin/tool')).toBe(0o755);
    expect(loose(cairnHome).filter((l) => !l.startsWith('/agents/'))).toEqual([]);
  }, 60_000);
});
