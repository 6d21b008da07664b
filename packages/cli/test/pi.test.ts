// `cairn sessions` and `cairn summary` on pi sessions: the corpus sample copied into a scratch home
// laid out as pi's own (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`), and into a folder
// named by PI_CODING_AGENT_SESSION_DIR.
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { cairn } from './run.js';

const SID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';

describe.skipIf(!corpus)('cairn on pi sessions', () => {
  const home = mkdtempSync(join(tmpdir(), 'cairn-pi-cli-'));
  const dir = join(home, '.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--');
  mkdirSync(dir, { recursive: true });
  cpSync(corpusPath('more', 'pi', 'small.jsonl'), join(dir, `2026-05-12T01-02-27-657Z_${SID}.jsonl`));
  const env = { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };

  it('lists them with --agent pi --json: first prompt, folder, model and times', () => {
    const r = cairn(['sessions', '--agent', 'pi', '--json'], env);
    expect(r.status).toBe(0);
    const { sessions, errors } = JSON.parse(r.stdout) as {
      sessions: Record<string, unknown>[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      agent: 'pi',
      id: SID,
      firstPrompt: 'Read hello.py and summarize what it prints without editing files.',
      cwd: '/tmp/as-agent-fixture/project',
      model: 'pi-fixture-model',
      startedAt: Date.parse('2026-05-12T01:02:27.657Z'),
      lastActivityAt: Date.parse('2026-05-12T01:02:45.843Z'),
    });
    const plain = cairn(['sessions', '--agent', 'pi'], env);
    expect(plain.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(plain.stdout).toContain('Read hello.py');
  });

  it('summarizes a session with the tokens its usage records', () => {
    const r = cairn(['summary', SID, '--json'], env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      summary: { requests: 2, inputTokens: 24, outputTokens: 14, turns: 2, compactions: 2 },
    });
  });

  it('reads sessions kept in PI_CODING_AGENT_SESSION_DIR', () => {
    const own = mkdtempSync(join(tmpdir(), 'cairn-pi-own-'));
    cpSync(corpusPath('more', 'pi', 'small.jsonl'), join(own, `2026-05-12T01-02-27-657Z_${SID}.jsonl`));
    const empty = mkdtempSync(join(tmpdir(), 'cairn-pi-cli-'));
    const r = cairn(['sessions', '--agent', 'pi', '--json'], {
      PATH: process.env.PATH,
      HOME: empty,
      CAIRN_HOME: join(empty, '.cairn'),
      PI_CODING_AGENT_SESSION_DIR: own,
    });
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual([SID]);
  });
});
