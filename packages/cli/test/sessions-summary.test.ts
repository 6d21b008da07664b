// `cairn sessions` narrowed by project, time and count; `cairn summary` with the model, the cost
// and the time; `cairn show` printing recorded output without its terminal escapes.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { cairn, corpusEnv } from './run.js';

interface Head {
  agent: string;
  id: string;
  cwd?: string;
  startedAt?: number;
  lastActivityAt?: number;
}

// Its main agent ran Opus; its subagents ran Haiku.
const OPUS_WITH_HAIKU = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
// A Codex session resumed the next day: a day of records, some hours of turns.
const RESUMED_CODEX = '019c8a59-e9dd-71f0-9ae3-4079fe9726a9';

describe.skipIf(!corpus)('cairn sessions filters', () => {
  const env = corpusEnv();
  const list = (...args: string[]): Head[] => {
    const r = cairn(['sessions', ...args, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return (JSON.parse(r.stdout) as { sessions: Head[] }).sessions;
  };
  const all = list();

  it('keeps the sessions run in a folder, by path or by its name', () => {
    const byPath = list('--project', '/home/USER/projects/spotter-worktrees');
    expect(byPath.map((s) => s.id).sort()).toEqual(
      all
        .filter((s) => s.cwd?.startsWith('/home/USER/projects/spotter-worktrees/'))
        .map((s) => s.id)
        .sort(),
    );
    expect(byPath).toHaveLength(2);
    const byName = list('--project', 'spotter');
    expect(byName.length).toBeGreaterThan(0);
    expect(byName.every((s) => s.cwd === '/home/marco/projects/spotter')).toBe(true);
  });

  it('keeps the sessions active within --since and --until, newest first', () => {
    const since = Date.parse('2026-02-23T00:00:00Z');
    const until = Date.parse('2026-02-23T23:59:59Z');
    const kept = list('--since', '2026-02-23T00:00:00Z', '--until', '2026-02-23T23:59:59Z');
    const expected = all.filter(
      (s) => (s.lastActivityAt ?? 0) >= since && (s.startedAt ?? s.lastActivityAt ?? 0) <= until,
    );
    expect(kept.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    expect(kept.every((s) => s.agent === 'codex')).toBe(true);
    // A relative time counts back from now: nothing in the corpus is from the last hour.
    expect(list('--since', '-1h')).toEqual([]);
  });

  it('prints at most --limit sessions, the newest', () => {
    expect(list('--limit', '3').map((s) => s.id)).toEqual(all.slice(0, 3).map((s) => s.id));
    const text = cairn(['sessions', '--agent', 'codex', '--limit', '1'], env);
    expect(text.stdout.trim().split('\n')).toHaveLength(1);
    expect(text.stdout).toContain(all.find((s) => s.agent === 'codex')!.id);
  });

  it('says when the filters leave nothing, and rejects values it cannot read', () => {
    const none = cairn(['sessions', '--project', 'no-such-project'], env);
    expect(none.status).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(`none of ${all.length} sessions match --project no-such-project`);
    for (const [args, message] of [
      [['--limit', '0'], "bad --limit '0'"],
      [['--limit', 'ten'], "bad --limit 'ten'"],
      [['--since', 'yesterday'], "bad --since 'yesterday'"],
      [
        ['--since', '2026-02-24', '--until', '2026-02-23'],
        "--until '2026-02-23' is before --since '2026-02-24'",
      ],
      [['--project', ''], '--project is empty'],
    ] as const) {
      const r = cairn(['sessions', ...args], env);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});

describe.skipIf(!corpus)('cairn summary: the model, the cost and the time', () => {
  const env = corpusEnv();

  it("names the main lane's model, the mix, and the cost", () => {
    const r = cairn(['summary', OPUS_WITH_HAIKU], env);
    expect(r.status).toBe(0);
    const field = (name: string) => r.stdout.match(new RegExp(`^  ${name} +(.*)$`, 'm'))?.[1];
    expect(field('model')).toBe('claude-opus-4-6');
    expect(field('models')).toMatch(/^claude-opus-4-6 158, claude-haiku-4-5-\d+ 20 requests$/);
    expect(field('cost')).toMatch(/^\$\d+\.\d{2} {2}\(genai-prices /);
    expect(field('reasoning')).toBe('-  (not recorded)');
    expect(field('duration')).toMatch(/^41 min 48 s wall-clock, \d+ min \d+ s active \(in turns\)$/);

    const json = JSON.parse(cairn(['summary', OPUS_WITH_HAIKU, '--json'], env).stdout);
    expect(json.model).toBe('claude-opus-4-6');
    expect(json.models.map((m: { model: string }) => m.model)[0]).toBe('claude-opus-4-6');
    expect(json.costUsd).toBeGreaterThan(0);
    expect(json.activeMs).toBeLessThanOrEqual(json.wallMs);
  });

  it('prints long spans in hours and minutes, active time beside wall-clock time, and reasoning', () => {
    const r = cairn(['summary', RESUMED_CODEX], env);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}duration {6}24 h 14 min wall-clock, \d+ h \d+ min active \(in turns\)$/m);
    expect(r.stdout).not.toMatch(/\d+\.\d+ min/);
    expect(r.stdout).toMatch(/^ {2}reasoning {5}42,113$/m);
    expect(r.stdout).toMatch(/^ {2}model {9}gpt-5\.3-codex$/m);
  });

  it('shows no cost, never $0, for a model the catalog has no price for', () => {
    const home = tempHome();
    const folder = join(home, '.claude', 'projects', '-work-unpriced');
    mkdirSync(folder, { recursive: true });
    const source = readFileSync(corpusPath('claude/projects/-work-spotter', 'short.jsonl'), 'utf8');
    writeFileSync(
      join(folder, 'unpriced.jsonl'),
      source.replaceAll('"claude-opus-4-6"', '"model-nobody-prices"'),
    );
    const henv = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };
    const r = cairn(['summary', 'unpriced'], henv);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}model {9}model-nobody-prices$/m);
    expect(r.stdout).toMatch(/^ {2}cost {10}- {2}\(no price for model-nobody-prices in genai-prices /m);
    const json = JSON.parse(cairn(['summary', 'unpriced', '--json'], henv).stdout);
    expect(json).not.toHaveProperty('costUsd');
  });

  it('--all lists the sessions newest first and ends with their totals', () => {
    const heads = JSON.parse(cairn(['sessions', '--json'], env).stdout).sessions as Head[];
    const r = cairn(['summary', '--all'], env);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^last active +agent +session +model +turns +reqs +input +output +fail +cost +active +wall-clock$/,
    );
    const rows = lines.slice(1, -1);
    expect(rows).toHaveLength(heads.length);
    // The same order as the listing's, by the time of each session's last record.
    expect(rows.map((l) => l.split(/\s+/)[3])).toEqual(heads.map((h) => h.id));
    const total = lines.at(-1)!;
    expect(total).toMatch(new RegExp(`^total +${heads.length} sessions `));

    const json = JSON.parse(cairn(['summary', '--all', '--json'], env).stdout) as {
      sessions: { id: string; lastActivityAt: number; summary: Record<string, number | undefined> }[];
      totals: Record<string, number>;
    };
    expect(json.sessions.map((s) => s.id)).toEqual(heads.map((h) => h.id));
    for (const key of ['turns', 'requests', 'inputTokens', 'outputTokens', 'failedTools'] as const) {
      const sum = json.sessions.reduce((n, s) => n + (s.summary[key] ?? 0), 0);
      expect(json.totals[key]).toBe(sum);
      expect(total).toContain(sum.toLocaleString('en-US'));
    }
    expect(r.stdout).not.toMatch(/\d+\.\d+ min/);
  });
});

describe.skipIf(!corpus)('cairn show on output with terminal escapes', () => {
  // A corpus session whose Bash output recolours, retitles and clears the terminal.
  const home = tempHome();
  const folder = join(home, '.claude', 'projects', '-work-escapes');
  mkdirSync(folder, { recursive: true });
  const source = corpusPath('claude/projects/-work-spotter', 'tool_heavy.jsonl');
  copyFileSync(source, join(folder, 'escapes.jsonl'));
  const text = readFileSync(source, 'utf8').replace(
    'Command running in background',
    '\\u001b[31mCommand\\u001b[0m running\\u001b]0;retitled\\u0007\\u001b[2J\\u009b1;1H in\\u0008 background',
  );
  writeFileSync(join(folder, 'escapes.jsonl'), text);
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };

  it.each([[['show', 'escapes']], [['show', 'escapes', '--types', 'tool']]])(
    '%j prints the text without the escapes',
    (args) => {
      const r = cairn(args, env);
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Command running in background');
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(r.stdout).not.toContain('retitled');
      expect(r.stdout).not.toContain('[31m');
    },
  );

  it('keeps the escapes in --json, where they are encoded', () => {
    const r = cairn(['show', 'escapes', '--json'], env);
    expect(r.stdout).toContain('\\u001b[31mCommand');
  });
});
