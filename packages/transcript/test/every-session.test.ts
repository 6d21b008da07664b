// Every session is found: one whose main file is gone but whose subagents' files remain, files
// reached through symbolic links (a link to nothing reported, a loop walked once), and every file
// under an agent's home that holds session records belongs to a listed session.
import { cpSync, type Dirent, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  adapterTable,
  type DiscoverEntry,
  discoverSessions,
  foldTranscript,
  HEAD_BYTES,
  type ListEntry,
  type ListFailure,
  listSessions,
  loadTranscript,
  nodePlatform,
  type SessionHead,
  type SessionPlatform,
  summarizeSession,
} from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusEnv, homeEnv, tempHome, tempPlatform } from './homes.js';
import { BIG, OTHER, SPOTTER, trickyHome } from './tricky-home.js';

async function listAll(platform: SessionPlatform, agent?: string): Promise<ListEntry[]> {
  const out: ListEntry[] = [];
  for await (const e of listSessions(platform, agent ? { agent } : {})) out.push(e);
  return out;
}
const heads = (entries: ListEntry[]) => entries.filter((e): e is SessionHead => !('ref' in e));
const failures = (entries: ListEntry[]) => entries.filter((e): e is ListFailure => 'ref' in e);

/** ccusage 20.0.24 on a Claude home holding only the two spotter sessions' folders (main files
 * removed); see reference/ccusage-claude.md. */
const ccusageOrphans = JSON.parse(
  readFileSync(new URL('./reference/ccusage-claude-orphans.json', import.meta.url), 'utf8'),
) as {
  sessions: {
    sessionId: string;
    inputTokens: number;
    cacheCreationTokens: number;
    cacheReadTokens: number;
    outputTokens: number;
  }[];
};

/** A Claude home whose spotter sessions lost their main files: only `<sid>/subagents/` remain. */
function orphanHome(): { home: string; project: string } {
  const home = tempHome();
  const project = join(home, '.claude', 'projects', '-work-spotter');
  mkdirSync(project, { recursive: true });
  for (const sid of [BIG, OTHER])
    cpSync(corpusPath(...SPOTTER, sid), join(project, sid), { recursive: true });
  return { home, project };
}

const subagentFilesOf = (project: string, sid: string): string[] =>
  readdirSync(join(project, sid, 'subagents'))
    .filter((n) => n.startsWith('agent-') && n.endsWith('.jsonl'))
    .sort()
    .map((n) => join(project, sid, 'subagents', n));

describe.skipIf(!corpus)('a Claude Code session whose main file is gone', () => {
  const { home, project } = orphanHome();
  const platform = tempPlatform(home);

  it('is listed with its subagent files, marked, with no first prompt', async () => {
    const entries = await listAll(platform, 'claude-code');
    expect(failures(entries)).toEqual([]);
    const found = heads(entries);
    expect(found.map((h) => h.id)).toEqual([BIG, OTHER]);
    for (const h of found) {
      const files = subagentFilesOf(project, h.id);
      expect(h).toMatchObject({
        agent: 'claude-code',
        path: join(project, `${h.id}.jsonl`),
        files,
        mainFileMissing: true,
        size: files.reduce((n, f) => n + statSync(f).size, 0),
      });
      expect(h.firstPrompt).toBeUndefined();
      const firstCwd = readFileSync(files[0]!, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { cwd?: string })
        .find((r) => r.cwd !== undefined)?.cwd;
      expect(h.cwd).toBe(firstCwd);
    }
    const discovered: string[] = [];
    for await (const e of discoverSessions(platform, { agent: 'claude-code' }))
      discovered.push('ref' in e ? `! ${e.ref}` : `${e.id} ${e.path}`);
    expect(discovered).toEqual(found.map((h) => `${h.id} ${h.path}`));
  });

  it('loads with an empty main lane and one lane per subagent file, and is marked', async () => {
    for (const sid of [BIG, OTHER]) {
      const loaded = await loadTranscript(platform, {
        agent: 'claude-code',
        path: join(project, `${sid}.jsonl`),
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const t = loaded.value;
      expect(t.session).toMatchObject({ id: sid, mainFileMissing: true });
      expect(t.agents[0]).toEqual({ id: sid });
      expect(t.agents.length).toBe(1 + subagentFilesOf(project, sid).length);
      expect(t.agents.slice(1).every((a) => a.parentId === sid)).toBe(true);
      expect(t.events.filter((e) => e.agentId === sid)).toEqual([]);
      expect(t.events.length).toBeGreaterThan(0);
      expect(t.capabilities).toContain('subagents');
      // Opening one of its subagent files, or its main file's path without naming the agent,
      // opens the whole session.
      for (const path of [subagentFilesOf(project, sid)[0]!, join(project, `${sid}.jsonl`)]) {
        const one = await loadTranscript(platform, { path });
        expect(one.ok && one.value.agents.map((a) => a.id), path).toEqual(t.agents.map((a) => a.id));
      }
      // A path that names nothing is still not found.
      const none = await loadTranscript(platform, { path: join(project, 'nothing.jsonl') });
      expect(none).toMatchObject({ ok: false, error: { _tag: 'SessionNotFound' } });
    }
  });

  it("counts the subagents' tokens as ccusage does, the fast pass equal to the fold", async () => {
    for (const sid of [BIG, OTHER]) {
      const target = { agent: 'claude-code', path: join(project, `${sid}.jsonl`) };
      const fast = await summarizeSession(platform, target, { prompts: true });
      const loaded = await loadTranscript(platform, target);
      if (!fast.ok || !loaded.ok) throw new Error('unreadable');
      expect(fast.value).toEqual(foldTranscript(loaded.value, { prompts: true }));
      const ref = ccusageOrphans.sessions.find((s) => s.sessionId === sid)!;
      expect(fast.value).toMatchObject({
        inputTokens: ref.inputTokens + ref.cacheCreationTokens + ref.cacheReadTokens,
        outputTokens: ref.outputTokens,
        cacheReadTokens: ref.cacheReadTokens,
        cacheWriteTokens: ref.cacheCreationTokens,
        turns: 0,
        subagents: subagentFilesOf(project, sid).length,
      });
      expect(fast.value.prompts).toEqual([]);
    }
  });

  it('is the same session again once its main file is back', async () => {
    const back = orphanHome();
    cpSync(corpusPath(...SPOTTER, `${BIG}.jsonl`), join(back.project, `${BIG}.jsonl`));
    const found = heads(await listAll(tempPlatform(back.home), 'claude-code'));
    expect(found.find((h) => h.id === BIG)).not.toHaveProperty('mainFileMissing');
    expect(found.find((h) => h.id === BIG)?.files[0]).toBe(join(back.project, `${BIG}.jsonl`));
    expect(found.find((h) => h.id === OTHER)?.mainFileMissing).toBe(true);
  });
});

describe.skipIf(!corpus)('session files reached through symbolic links', () => {
  const home = trickyHome();
  const platform = tempPlatform(home);

  it('are listed, a link to nothing is a failure, and a folder loop is walked once', async () => {
    const entries = await listAll(platform);
    const found = heads(entries);
    const paths = found.flatMap((h) => h.files);
    const claude = join(home, '.claude', 'projects');
    const day = join(home, '.codex', 'sessions', '2026', '02', '23');
    expect(found.find((h) => h.path === join(claude, '-src-app', 'linked.jsonl'))).toMatchObject({
      id: 'linked',
      firstPrompt: 'mix phx.server doesnt seem to start',
    });
    expect(found.some((h) => h.path.startsWith(join(claude, '-linked')))).toBe(true);
    expect(
      found
        .filter((h) => h.agent === 'codex')
        .map((h) => h.path.slice(home.length))
        .sort(),
    ).toEqual(
      [
        ...readdirSync(corpusPath('codex', 'sessions', '2025', '10', '21')).map(
          (n) => `/.codex/sessions/2025/10/21/${n}`,
        ),
        ...readdirSync(corpusPath('codex', 'sessions', '2026', '02', '23'))
          .sort()
          .map((n, i) => (i < 2 ? `/.codex/sessions/2026/02/23/${n}` : `/.codex/archived_sessions/${n}`)),
      ].sort(),
    );
    expect(paths.filter((p) => p.includes('/loop/'))).toEqual([]);
    const gemini = join(home, '.gemini', 'tmp', 'p1', 'chats');
    expect(found.filter((h) => h.agent === 'gemini-cli').map((h) => h.files)).toEqual([
      [join(gemini, readdirSync(gemini).find((n) => n.endsWith('.json'))!)],
      [join(gemini, 'gone-parent', 'sub.jsonl')],
    ]);
    expect(
      failures(entries)
        .map((f) => f.ref)
        .sort(),
    ).toEqual(
      [
        join(claude, '-src-app', 'dangling.jsonl'),
        join(day, 'rollout-2026-02-23T23-59-59-019c8a4d-0000-7000-8000-000000000000.jsonl'),
      ].sort(),
    );
    expect(found.find((h) => h.id === 'gone')).toMatchObject({
      mainFileMissing: true,
      files: [
        join(claude, '-src-app', 'gone', 'subagents', 'agent-a2898e3.jsonl'),
        join(claude, '-src-app', 'gone', 'subagents', 'workflows', 'wf_1', 'agent-acompact-e1f845.jsonl'),
      ],
    });
  });
});

describe.skipIf(!corpus)('discovery over linked files and lost main files', () => {
  it('finds the sessions the listing finds, in its order', async () => {
    const home = trickyHome();
    const platform = tempPlatform(home);
    const line = (e: ListEntry | DiscoverEntry) =>
      'ref' in e ? `! ${e.ref}` : `${e.agent} ${e.id} ${e.path}`;
    const listed = (await listAll(platform)).map(line);
    const found: string[] = [];
    for await (const e of discoverSessions(platform)) found.push(line(e));
    // A Claude Code link to nothing is a session to discovery (reading it fails), a failure to the listing.
    const dangling = join(home, '.claude', 'projects', '-src-app', 'dangling.jsonl');
    expect(listed).toContain(`! ${dangling}`);
    expect(found).toEqual(
      listed.map((l) => (l === `! ${dangling}` ? `claude-code dangling ${dangling}` : l)),
    );
  });
});

/** Every file under `root` (links followed, each real folder once) whose name a session file could have. */
function filesUnder(root: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (dir: string) => {
    let real: string;
    try {
      real = realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(path);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(path);
      else if (/\.(jsonl|json|jsonl\.zst)$/.test(e.name)) out.push(path);
    }
  };
  walk(root);
  return out.sort();
}

/** Every file under an agent's home that its adapter recognises as holding its session records
 * is a file of some listed session. */
async function expectEveryFileListed(env: Record<string, string>): Promise<number> {
  const platform = tempPlatformOf(env);
  const listed = new Set(heads(await listAll(platform)).flatMap((h) => h.files));
  let checked = 0;
  for (const adapter of adapterTable()) {
    for (const home of adapter.homes(platform)) {
      for (const path of filesUnder(home)) {
        const head = new Uint8Array(readFileSync(path)).subarray(0, HEAD_BYTES);
        if (!adapter.detect(path, head)) continue;
        checked++;
        expect(listed.has(path), `${adapter.id} ${path}`).toBe(true);
      }
    }
  }
  return checked;
}

const tempPlatformOf = (env: Record<string, string>): SessionPlatform =>
  nodePlatform({ homeDir: env.HOME!, env });

describe.skipIf(!corpus)('every file that holds session records belongs to a listed session', () => {
  it('under the corpus homes', async () => {
    const checked = await expectEveryFileListed(corpusEnv());
    expect(checked).toBe(
      filesUnder(corpusPath('claude')).length +
        filesUnder(corpusPath('codex')).length +
        filesUnder(corpusPath('gemini')).length,
    );
  });

  it('under a hand-made home of links, lost main files and older layouts', async () => {
    const checked = await expectEveryFileListed(homeEnv(trickyHome()));
    // Claude: two files, a linked folder's one, the lost session's two, an older subagent file;
    // Codex: two, a linked folder's one, an archived one; Gemini: one, and a lost session's subagent.
    expect(checked).toBe(12);
  });

  it('under a home whose sessions lost their main files', async () => {
    const { home, project } = orphanHome();
    const checked = await expectEveryFileListed(homeEnv(home));
    expect(checked).toBe(subagentFilesOf(project, BIG).length + subagentFilesOf(project, OTHER).length);
  });
});
