// `cairn summary --all` keeps the numbers of sessions whose files have not changed and reads only
// the rest: the output is the same as a run that keeps nothing, whatever changed in between.
import { appendFileSync, cpSync, existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { cairn } from './run.js';

interface Out {
  sessions: {
    agent: string;
    id: string;
    path: string;
    summary: Record<string, unknown>;
    lastActivityAt?: number;
  }[];
  errors: unknown[];
}

const CC_SID = '4d5611e5-241a-462a-8d15-5122611a9569';

/** A home holding a copy of the corpus's agent folders, which the tests change. */
function copiedHome() {
  const home = tempHome();
  cpSync(corpusPath('claude'), join(home, '.claude'), { recursive: true });
  cpSync(corpusPath('codex'), join(home, '.codex'), { recursive: true });
  cpSync(corpusPath('gemini'), join(home, '.gemini'), { recursive: true });
  const cairnHome = join(home, '.cairn');
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: cairnHome };
  return { home, cairnHome, env, cache: join(cairnHome, 'summaries.sqlite') };
}

function summaryAll(env: NodeJS.ProcessEnv, agent?: string): { out: Out; stdout: string; stderr: string } {
  const r = cairn(['summary', '--all', '--json', ...(agent ? ['--agent', agent] : [])], env);
  expect(r.status, r.stderr).toBe(0);
  return { out: JSON.parse(r.stdout) as Out, stdout: r.stdout, stderr: r.stderr };
}

/** What a run that keeps nothing gives for the same files. */
const truth = (env: NodeJS.ProcessEnv, agent?: string) =>
  summaryAll({ ...env, CAIRN_HOME: join(tempHome(), '.cairn') }, agent).stdout;

function withDb<T>(file: string, use: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return use(db);
  } finally {
    db.close();
  }
}

const keptPaths = (file: string): string[] =>
  withDb(file, (db) => db.prepare('SELECT path FROM sessions ORDER BY path').pluck().all() as string[]);

/** Stands a marker in for the kept numbers of the session at `path`. */
const plant = (file: string, path: string, summary: string): void =>
  withDb(file, (db) => {
    expect(db.prepare('UPDATE sessions SET summary = ? WHERE path = ?').run(summary, path).changes).toBe(1);
  });

const findRow = (out: Out, path: string) => out.sessions.find((s) => s.path === path);

describe.skipIf(!corpus)('summary --all across runs', () => {
  it('gives the kept numbers of unchanged sessions, and reads again those whose files changed', () => {
    const { env, cache, home } = copiedHome();
    const first = summaryAll(env);
    expect(first.out.errors).toEqual([]);
    expect(first.out.sessions.length).toBeGreaterThan(5);
    expect(keptPaths(cache)).toEqual(first.out.sessions.map((s) => s.path).sort());
    // A second run over unchanged files takes every session from the cache, in the same order.
    expect(summaryAll(env).stdout).toBe(first.stdout);

    // Proof that the kept numbers are what is shown: a marker planted in the cache comes out.
    const rollout = first.out.sessions.find((s) => s.agent === 'codex')!.path;
    plant(cache, rollout, '{"turns":4242}');
    expect(findRow(summaryAll(env).out, rollout)?.summary).toEqual({ turns: 4242 });
    // The time of each session's last record is kept with its numbers: a run where nothing changed
    // lists no session for it, and a marker time planted comes out, and orders the rows.
    plant(cache, rollout, '{"turns":4242,"lastActivityAt":1000}');
    const marked = summaryAll(env).out;
    expect(findRow(marked, rollout)).toMatchObject({ summary: { turns: 4242 }, lastActivityAt: 1000 });
    expect(marked.sessions.at(-1)?.path).toBe(rollout);
    // A file whose time changed is read again.
    const later = new Date(Date.now() + 5_000);
    utimesSync(rollout, later, later);
    expect(summaryAll(env).stdout).toBe(first.stdout);

    // A prompt appended to a Claude Code session counts at once.
    const main = join(home, '.claude', 'projects', '-work-spotter', `${CC_SID}.jsonl`);
    const before = findRow(first.out, main)!.summary;
    appendFileSync(
      main,
      `${JSON.stringify({
        type: 'user',
        uuid: '0f0e0d0c-0000-4000-8000-000000000001',
        sessionId: CC_SID,
        timestamp: '2026-03-01T10:00:00.000Z',
        message: { role: 'user', content: 'one more question' },
      })}\n`,
    );
    const grown = summaryAll(env);
    expect(grown.stdout).toBe(truth(env));
    expect(findRow(grown.out, main)!.summary.turns).toBe((before.turns as number) + 1);

    // A subagent file that appears in a session is a change to that session.
    const subagents = join(home, '.claude', 'projects', '-work-spotter', CC_SID, 'subagents');
    const one = readdirSync(subagents).find((f) => f.endsWith('.jsonl'))!;
    cpSync(join(subagents, one), join(subagents, `agent-ffffffffffffffff.jsonl`));
    const more = summaryAll(env);
    expect(more.stdout).toBe(truth(env));
    expect(findRow(more.out, main)!.summary.subagents).toBe((before.subagents as number) + 1);

    // A session that is gone is gone from the cache too.
    rmSync(rollout);
    const after = summaryAll(env);
    expect(findRow(after.out, rollout)).toBeUndefined();
    expect(keptPaths(cache)).not.toContain(rollout);
    expect(keptPaths(cache)).toEqual(after.out.sessions.map((s) => s.path).sort());
  });

  it("keeps other agents' sessions through a run for one agent", () => {
    const { env, cache } = copiedHome();
    const all = summaryAll(env);
    const codex = summaryAll(env, 'codex');
    expect(codex.out.sessions.every((s) => s.agent === 'codex')).toBe(true);
    expect(keptPaths(cache)).toEqual(all.out.sessions.map((s) => s.path).sort());
    const claude = all.out.sessions.find((s) => s.agent === 'claude-code')!.path;
    plant(cache, claude, '{"turns":7}');
    expect(findRow(summaryAll(env, 'claude-code').out, claude)?.summary).toEqual({ turns: 7 });
  });

  it("reads again a session whose kept numbers are not a summary, or another build's", () => {
    const { env, cache } = copiedHome();
    const first = summaryAll(env);
    const [a, b, c] = first.out.sessions.map((s) => s.path);
    plant(cache, a!, 'not json');
    plant(cache, b!, '{"turns":-1}');
    plant(cache, c!, '{"turns":1,"script":"<img src=x onerror=alert(1)>"}');
    expect(summaryAll(env).stdout).toBe(first.stdout);
    plant(cache, a!, '{"turns":4242}');
    withDb(cache, (db) => db.prepare("UPDATE meta SET value = 'another build' WHERE key = 'build'").run());
    expect(summaryAll(env).stdout).toBe(first.stdout);
  });

  it('makes a damaged cache anew, and goes on without one it cannot write', () => {
    const { env, cache, cairnHome } = copiedHome();
    const first = summaryAll(env);
    writeFileSync(
      cache,
      'this is not a database, but it is long enough to look like one at first '.repeat(90),
    );
    rmSync(`${cache}-wal`, { force: true });
    const damaged = summaryAll(env);
    expect(damaged.stdout).toBe(first.stdout);
    expect(damaged.stderr).toContain(cache);
    expect(damaged.stderr).toContain('made anew');
    expect(keptPaths(cache)).toEqual(first.out.sessions.map((s) => s.path).sort());
    expect(summaryAll(env).stderr).toBe('');

    // A CAIRN_HOME that is a file: the numbers still come, with a line that says why none are kept.
    rmSync(cairnHome, { recursive: true });
    writeFileSync(cairnHome, 'a file where the folder should be');
    const unwritable = summaryAll(env);
    expect(unwritable.stdout).toBe(first.stdout);
    expect(unwritable.stderr).toContain(cache);
    expect(existsSync(cache)).toBe(false);
  });
});
