// `cairn summary --all` shows each session's model, cost and active time, the same as `cairn summary
// <ref>` gives for it, whether the run read the session or took it from the summary cache.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { tempHome } from '../../transcript/test/homes.js';
import { cairn, corpusEnv } from './run.js';

interface AllOut {
  sessions: { agent: string; id: string; model?: string; costUsd?: number; activeMs?: number }[];
  totals: { costUsd?: number; activeMs?: number };
}

// Its main agent ran Opus; its subagents ran Haiku.
const OPUS_WITH_HAIKU = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

describe.skipIf(!corpus)('summary --all facts', () => {
  const env = corpusEnv();
  const all = (): { out: AllOut; stdout: string; table: string } => {
    const r = cairn(['summary', '--all', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const table = cairn(['summary', '--all'], env);
    expect(table.status, table.stderr).toBe(0);
    return { out: JSON.parse(r.stdout) as AllOut, stdout: r.stdout, table: table.stdout };
  };

  it('gives every session the model, cost and active time of its own summary, cold and from the cache', () => {
    const cold = all();
    expect(cold.out.sessions.length).toBeGreaterThan(5);
    for (const s of cold.out.sessions) {
      const one = cairn(['summary', s.id, '--agent', s.agent, '--json'], env);
      expect(one.status, one.stderr).toBe(0);
      const j = JSON.parse(one.stdout) as { model?: string; costUsd?: number; activeMs?: number };
      expect({ id: s.id, model: s.model, costUsd: s.costUsd, activeMs: s.activeMs }).toEqual({
        id: s.id,
        model: j.model,
        costUsd: j.costUsd,
        activeMs: j.activeMs,
      });
    }
    expect(cold.out.sessions.find((s) => s.id === OPUS_WITH_HAIKU)?.model).toMatch(/opus/);
    // Priced sessions of the corpus: the total is their sum, and every row shows its cost and time.
    const costs = cold.out.sessions.map((s) => s.costUsd ?? 0);
    expect(costs.filter((c) => c > 0).length).toBeGreaterThan(5);
    expect(cold.out.totals.costUsd).toBeCloseTo(
      costs.reduce((a, b) => a + b, 0),
      6,
    );
    const rows = cold.table.trimEnd().split('\n').slice(1, -1);
    for (const [k, s] of cold.out.sessions.entries()) {
      expect(rows[k]).toContain(` ${s.model ?? '-'} `);
      if (s.costUsd !== undefined) expect(rows[k]).toMatch(/ \$\d+\.\d{2,4} /);
    }
    expect(cold.table.trimEnd().split('\n').at(-1)).toContain(`$${cold.out.totals.costUsd!.toFixed(2)}`);

    // The second run takes every session from the cache and prints the same.
    const warm = all();
    expect(warm.stdout).toBe(cold.stdout);
    expect(warm.table).toBe(cold.table);
  });

  it('leaves the facts out, not wrong, in a home whose cache has none for a session', () => {
    const fresh = { ...env, CAIRN_HOME: join(tempHome(), '.cairn') };
    const r = cairn(['summary', '--all', '--json'], fresh);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(all().stdout);
  });
});
