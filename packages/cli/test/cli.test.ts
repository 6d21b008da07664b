// The command line, run as a separate process over the corpus.
import { describe, expect, it } from 'vitest';
import { foldTranscript, loadTranscript, nodePlatform } from '../../transcript/src/index.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { cairn, corpusEnv } from './run.js';

const LONG = '4d5611e5-241a-462a-8d15-5122611a9569';

describe.skipIf(!corpus)('cairn CLI', () => {
  const env = corpusEnv();

  it('lists every corpus session as JSON, newest activity first', () => {
    const r = cairn(['sessions', '--json'], env);
    expect(r.status).toBe(0);
    const { sessions, errors } = JSON.parse(r.stdout) as {
      sessions: { agent: string; id: string; lastActivityAt: number }[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(new Set(sessions.map((s) => s.agent))).toEqual(new Set(['claude-code', 'codex', 'gemini-cli']));
    expect(sessions.map((s) => s.id)).toContain(LONG);
    const times = sessions.map((s) => s.lastActivityAt);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters the listing by agent alias', () => {
    const r = cairn(['sessions', '--agent', 'claude', '--json'], env);
    const { sessions } = JSON.parse(r.stdout) as { sessions: { agent: string }[] };
    expect(sessions.length).toBeGreaterThan(0);
    expect(sessions.every((s) => s.agent === 'claude-code')).toBe(true);
  });

  it('shows one event per line, by unique id prefix, matching the library', async () => {
    const loaded = await loadTranscript(nodePlatform({ env }), {
      path: corpusPath('claude/projects/-work-spotter', `${LONG}.jsonl`),
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const r = cairn(['show', LONG.slice(0, 8), '--json'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(loaded.value.events.length);
    expect(JSON.parse(lines[0]!).id).toBe(loaded.value.events[0]!.id);
  });

  it('gives a session summary equal to the fold of the loaded transcript', async () => {
    const path = corpusPath('claude/projects/-work-spotter', `${LONG}.jsonl`);
    const loaded = await loadTranscript(nodePlatform({ env }), { path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const r = cairn(['summary', path, '--json'], env);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    const { prompts: _, ...expected } = foldTranscript(loaded.value);
    expect(out.summary).toMatchObject(expected);
    expect(out.version).toBe(2);
    // A path names the session as an id would: its agent and id, found from the homes.
    expect(out).toMatchObject({ agent: 'claude-code', id: LONG, path });
    expect(cairn(['summary', path], env).stdout.split('\n')[0]).toBe(`claude-code ${LONG}`);
  });

  it('summarizes every session with --all', () => {
    const list = JSON.parse(cairn(['sessions', '--json'], env).stdout) as { sessions: unknown[] };
    const r = cairn(['summary', '--all', '--json'], env);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { sessions: { summary: { turns: number } }[]; errors: unknown[] };
    expect(out.sessions).toHaveLength(list.sessions.length);
    expect(out.errors).toEqual([]);
  });

  it('exits 1 with one line for a ref that matches nothing, 2 for usage errors', () => {
    const missing = cairn(['show', 'no-such-session'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain('no-such-session');
    expect(cairn(['show'], env).status).toBe(2);
    expect(cairn(['summary'], env).status).toBe(2);
    expect(cairn(['sessions', '--bogus'], env).status).toBe(2);
    expect(cairn(['frobnicate'], env).status).toBe(2);
  });

  it('exits 1 for a file no adapter recognises', () => {
    const r = cairn(['show', corpusPath('README.md')], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('no adapter');
  });
});
