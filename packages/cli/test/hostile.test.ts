// The command line on hostile sessions: every command answers, with the rest of the session intact.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { writeDeepSessions, writeOddNumberSessions } from '../../transcript/test/hostile.js';
import { cairn } from './run.js';

describe('cairn on sessions with a value nested 10,000 levels deep', () => {
  const home = tempHome();
  const sessions = writeDeepSessions(home);
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };

  describe.each([
    ['claude-code', sessions.claude.id],
    ['gemini-cli', sessions.gemini.id],
    ['codex', sessions.codex.id],
  ])('%s', (_agent, sid) => {
    it.each([
      [['show', sid]],
      [['show', sid, '--json']],
      [['show', sid, '--types', 'tool,message']],
      [['summary', sid, '--json']],
    ])('%j answers with the records after the deep value', (args) => {
      const r = cairn(args, env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      if (args[0] !== 'summary') expect(r.stdout).toContain('after the deep value');
      else expect(JSON.parse(r.stdout)).toMatchObject({ id: sid, summary: { failedTools: 0 } });
    });

    it.each(['json', 'md'])('dumps as %s', (format) => {
      const out = join(home, `${sid}.${format}`);
      const r = cairn(
        ['dump', sid, '--types', 'tool,message', '--format', format, '--out', out, '--json'],
        env,
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ path: out });
    });
  });
});

describe('cairn on sessions with timestamps and counts outside the contract', () => {
  const home = tempHome();
  const sessions = writeOddNumberSessions(home);
  const env = { PATH: process.env.PATH, ...homeEnv(home), CAIRN_HOME: join(home, '.cairn') };

  describe.each([
    ['claude-code', sessions.claude.id],
    ['gemini-cli', sessions.gemini.id],
    ['codex', sessions.codex.id],
  ])('%s', (_agent, sid) => {
    it.each([
      [['show', sid]],
      [['show', sid, '--types', 'tool,message']],
      [['dump', sid, '--types', 'tool,message', '--format', 'md', '--out', join(home, `${sid}.md`)]],
    ])('%j answers with every reply', (args) => {
      const r = cairn(args, env);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const text = args[0] === 'dump' ? readFileSync(join(home, `${sid}.md`), 'utf8') : r.stdout;
      expect(text).toContain('reply 4');
      expect(text).toContain('the last reply');
    });

    it('summarizes to finite whole numbers', () => {
      const r = cairn(['summary', sid, '--json'], env);
      expect(r.status).toBe(0);
      const { summary } = JSON.parse(r.stdout) as { summary: Record<string, unknown> };
      for (const [key, n] of Object.entries(summary))
        if (typeof n === 'number') expect(Number.isSafeInteger(n), key).toBe(true);
    });
  });
});
