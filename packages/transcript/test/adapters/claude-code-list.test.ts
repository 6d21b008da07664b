// Finding Claude Code sessions: homes, detection, listing and a session's files.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ListEntry, ListFailure } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import type { SessionHead } from '../../src/model.js';
import { nodePlatform } from '../../src/platform-node.js';
import { adapterContext, HEAD_BYTES, readHead } from '../../src/read.js';
import { corpus, corpusPath } from '../corpus.js';
import { tempHome } from '../homes.js';
import { claudeSession, claudeSessions, load, records } from './claude-code-corpus.js';

const platform = nodePlatform({ homeDir: '/nonexistent-home', env: {} });
const ctx = adapterContext(platform);

async function listAll(home: string): Promise<ListEntry[]> {
  const out: ListEntry[] = [];
  for await (const e of claudeCodeAdapter.list(ctx, home)) out.push(e);
  return out;
}
const heads = (entries: ListEntry[]) => entries.filter((e): e is SessionHead => !('ref' in e));
const failures = (entries: ListEntry[]) => entries.filter((e): e is ListFailure => 'ref' in e);

const jsonl = (...records: unknown[]) => records.map((r) => `${JSON.stringify(r)}\n`).join('');
const userLine = (sessionId: string, uuid: string, content: string, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  sessionId,
  uuid,
  cwd: '/src/app',
  timestamp: '2026-05-01T08:00:00.000Z',
  message: { role: 'user', content },
  ...extra,
});

describe('Claude Code homes', () => {
  const join = (...p: string[]) => p.join('/');
  it('is every folder of $CLAUDE_CONFIG_DIR when set', () => {
    expect(
      claudeCodeAdapter.homes({ env: { CLAUDE_CONFIG_DIR: '/cfg/claude' }, homeDir: '/home/u', join }),
    ).toEqual(['/cfg/claude']);
    expect(
      claudeCodeAdapter.homes({ env: { CLAUDE_CONFIG_DIR: '/a, /b,,/a' }, homeDir: '/home/u', join }),
    ).toEqual(['/a', '/b']);
  });

  it('is ~/.claude and the XDG config folder otherwise', () => {
    expect(claudeCodeAdapter.homes({ env: {}, homeDir: '/home/u', join })).toEqual([
      '/home/u/.claude',
      '/home/u/.config/claude',
    ]);
    expect(
      claudeCodeAdapter.homes({
        env: { XDG_CONFIG_HOME: '/xdg', CLAUDE_CONFIG_DIR: ' ' },
        homeDir: '/home/u',
        join,
      }),
    ).toEqual(['/home/u/.claude', '/xdg/claude']);
  });
});

describe.skipIf(!corpus)('detecting Claude Code files', () => {
  const head = (path: string) => readHead(platform, path);

  it('accepts every corpus Claude Code file, subagent files included', async () => {
    for (const s of claudeSessions)
      for (const f of s.files) expect(claudeCodeAdapter.detect(f, await head(f)), f).toBe(true);
  });

  it("refuses other agents' JSONL files and anything that is not .jsonl", async () => {
    const others = [
      ...readdirSync(corpusPath('codex/sessions/2026/02/23')).map((n) =>
        corpusPath('codex/sessions/2026/02/23', n),
      ),
      ...['gemini', 'copilot', 'cursor', 'grok', 'kimi', 'pi', 'qwen'].flatMap((agent) =>
        readdirSync(corpusPath('more', agent))
          .filter((n) => n.endsWith('.jsonl'))
          .map((n) => corpusPath('more', agent, n)),
      ),
    ];
    expect(others.length).toBeGreaterThan(10);
    for (const f of others) expect(claudeCodeAdapter.detect(f, await head(f)), f).toBe(false);
    const main = claudeSessions[0]!.files[0]!;
    expect(claudeCodeAdapter.detect(`${main}.bak`, await head(main))).toBe(false);
  });
});

describe.skipIf(!corpus)('listing the corpus', () => {
  it('gives one head per main file with its files, folder, first prompt, start, size and activity', async () => {
    const entries = await listAll(corpusPath('claude'));
    expect(failures(entries)).toEqual([]);
    const found = heads(entries);
    expect(found.map((h) => h.id).sort()).toEqual(claudeSessions.map((s) => s.id).sort());
    for (const h of found) {
      const s = claudeSession(h.id);
      const t = load(s);
      const stats = s.files.map((f) => statSync(f));
      const firstTimestamp = records(s.files[0]!).find((r) => typeof r.timestamp === 'string')?.timestamp;
      const firstPrompt = t.events.find(
        (e) => e.kind === 'user' && !e.payload.synthetic && e.agentId === s.id,
      );
      const branch = records(s.files[0]!).find((r) => typeof r.gitBranch === 'string' && r.gitBranch !== '')
        ?.gitBranch as string | undefined;
      const typed =
        firstPrompt?.kind === 'user' && firstPrompt.source.offset + firstPrompt.source.length <= HEAD_BYTES
          ? firstPrompt.payload.text
          : undefined;
      expect(h).toEqual({
        agent: 'claude-code',
        id: s.id,
        path: s.files[0],
        files: s.files,
        cwd: t.session.cwd,
        // Listing reads the first 128 KB: a first prompt past them is left to loading. A slash
        // command with arguments typed first is the first prompt.
        firstPrompt: h.id === 'subagent' ? h.firstPrompt : typed,
        ...(branch === undefined ? {} : { gitBranch: branch }),
        startedAt: Date.parse(firstTimestamp as string),
        // The latest of its files' last record times, not when the files were written or copied.
        lastActivityAt: Math.max(
          ...s.files.map((f) =>
            Date.parse(records(f).findLast((r) => typeof r.timestamp === 'string')!.timestamp as string),
          ),
        ),
        size: stats.reduce((n, st) => n + st.size, 0),
      });
    }
    expect(found.find((h) => h.id === 'short')?.firstPrompt).toBe('mix phx.server doesnt seem to start');
    expect(found.find((h) => h.id === 'subagent')?.firstPrompt).toMatch(
      /^\/handgemacht:create-beads websearch to learn how to fastest setup credo/,
    );
  });

  it('gives the main file and its sorted subagent files as the session files', async () => {
    for (const s of claudeSessions)
      expect(await claudeCodeAdapter.sessionFiles(ctx, s.files[0]!)).toEqual({ ok: true, value: s.files });
  });
});

describe('listing and opening sessions in a temporary home', () => {
  const home = tempHome();
  const project = join(home, 'projects', '-src-app');
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 's1.jsonl'),
    jsonl(
      { type: 'file-history-snapshot', messageId: 'm', snapshot: {} },
      userLine('s1', 'u0', '<command-name>/clear</command-name>'),
      userLine('s1', 'u1', 'Fix the flaky test'),
      { type: 'custom-title', customTitle: 'Flaky test', sessionId: 's1' },
    ),
  );
  // An older CLI's subagent file beside the session, and one of a session that is not here.
  writeFileSync(
    join(project, 'agent-old1.jsonl'),
    jsonl(userLine('s1', 'x1', 'sub work', { isSidechain: true, agentId: 'old1' })),
  );
  writeFileSync(
    join(project, 'agent-lost.jsonl'),
    jsonl(userLine('gone', 'y1', 'lost work', { isSidechain: true, agentId: 'lost' })),
  );
  writeFileSync(join(project, 'notes.txt'), 'not a session');
  mkdirSync(join(home, 'projects', '-other'));
  writeFileSync(
    join(home, 'projects', '-other', 'codex.jsonl'),
    jsonl({ timestamp: 't', type: 'session_meta', payload: {} }),
  );

  it('lists each session with its title, first real prompt and older subagent files', async () => {
    const entries = await listAll(home);
    expect(failures(entries)).toEqual([
      expect.objectContaining({
        ref: join(home, 'projects', '-other', 'codex.jsonl'),
        error: expect.objectContaining({ _tag: 'UnknownFormatGeneration', line: 1 }),
      }),
    ]);
    const found = heads(entries);
    expect(found.map((h) => [h.id, h.files])).toEqual([
      ['agent-lost', [join(project, 'agent-lost.jsonl')]],
      ['s1', [join(project, 's1.jsonl'), join(project, 'agent-old1.jsonl')]],
    ]);
    expect(found[1]).toMatchObject({
      title: 'Flaky test',
      firstPrompt: 'Fix the flaky test',
      cwd: '/src/app',
    });
    expect(await claudeCodeAdapter.sessionFiles(ctx, join(project, 's1.jsonl'))).toEqual({
      ok: true,
      value: [join(project, 's1.jsonl'), join(project, 'agent-old1.jsonl')],
    });
  });

  it('translates an older subagent file as a lane of its session', async () => {
    const paths = await claudeCodeAdapter.sessionFiles(ctx, join(project, 's1.jsonl'));
    const files = (paths.ok ? paths.value : []).map((path) => ({ path, data: readFileSync(path) }));
    const r = claudeCodeAdapter.translate(files);
    expect(r.ok && r.value.agents).toEqual([{ id: 's1' }, { id: 'old1', parentId: 's1', title: 'sub work' }]);
    expect(r.ok && r.value.session.title).toBe('Flaky test');
  });

  it('finds subagent files in the session folder, workflow agents included', async () => {
    const other = join(home, 'projects', '-src-wf');
    const sub = join(other, 's2', 'subagents');
    mkdirSync(join(sub, 'workflows', 'wf_1'), { recursive: true });
    mkdirSync(join(other, 's2', 'tool-results'), { recursive: true });
    writeFileSync(join(other, 's2.jsonl'), jsonl(userLine('s2', 'm1', 'Run the workflow')));
    writeFileSync(
      join(sub, 'agent-b.jsonl'),
      jsonl(userLine('s2', 'b1', 'b', { isSidechain: true, agentId: 'b' })),
    );
    writeFileSync(
      join(sub, 'agent-a.jsonl'),
      jsonl(userLine('s2', 'a1', 'a', { isSidechain: true, agentId: 'a' })),
    );
    writeFileSync(join(sub, 'agent-a.meta.json'), '{"agentType":"general-purpose"}');
    writeFileSync(
      join(sub, 'workflows', 'wf_1', 'agent-w.jsonl'),
      jsonl(userLine('s2', 'w1', 'w', { isSidechain: true, agentId: 'w' })),
    );
    writeFileSync(join(sub, 'workflows', 'wf_1', 'journal.jsonl'), jsonl({ type: 'step' }));
    writeFileSync(join(other, 's2', 'tool-results', 'x.txt'), 'big output');
    const files = [
      join(sub, 'agent-a.jsonl'),
      join(sub, 'agent-b.jsonl'),
      join(sub, 'workflows', 'wf_1', 'agent-w.jsonl'),
    ];
    expect(await claudeCodeAdapter.sessionFiles(ctx, join(other, 's2.jsonl'))).toEqual({
      ok: true,
      value: [join(other, 's2.jsonl'), ...files],
    });
    const head = heads(await listAll(home)).find((h) => h.id === 's2');
    expect(head?.files).toEqual([join(other, 's2.jsonl'), ...files]);
    expect(head?.size).toBe([join(other, 's2.jsonl'), ...files].reduce((n, f) => n + statSync(f).size, 0));
  });

  it('lists nothing, and no failure, for a home without projects', async () => {
    expect(await listAll(join(home, 'missing'))).toEqual([]);
  });

  it('answers a missing session or a folder with a failure value, never a throw', async () => {
    const missing = await claudeCodeAdapter.sessionFiles(ctx, join(project, 'nope.jsonl'));
    expect(missing).toMatchObject({ ok: false, error: { _tag: 'SessionNotFound' } });
    const folder = await claudeCodeAdapter.sessionFiles(ctx, project);
    expect(folder).toMatchObject({ ok: false, error: { _tag: 'ReadFailed' } });
  });
});
