// The fuzz suite: seeded mutations of the corpus files of every agent, each checked for what must
// hold on any input (see fuzz/check.ts). `npm run fuzz -- --cases N [--seed S]` runs more.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { homeEnv, tempHome } from '../../transcript/test/homes.js';
import { checkCase } from './fuzz/check.js';
import { corpusSessions, MUTATIONS, makeCase } from './fuzz/mutate.js';

const CASES = Number(process.env.CAIRN_FUZZ_CASES ?? 2000);
const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? 1);
/** A case that takes longer than this is a hang, whatever it holds. */
const CASE_MS = 10_000;
const BATCH = 250;

describe.skipIf(!corpus)(`${CASES} fuzzed session files from seed ${SEED}`, () => {
  const sessions = corpus ? corpusSessions() : [];
  const home = tempHome();
  mkdirSync(join(home, '.cairn'), { recursive: true });
  const env = homeEnv(home);
  const platform = nodePlatform({ env, homeDir: home });

  it('start from sessions of every agent and use every kind of mutation', () => {
    expect(new Set(sessions.map((s) => s.agent))).toEqual(
      new Set(['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'pi', 'copilot-cli', 'opencode']),
    );
    const used = new Set<string>();
    for (let i = 0; i < Math.min(CASES, 500); i++)
      for (const step of makeCase(SEED + i, sessions).steps.slice(1)) used.add(step.split('@')[0]!);
    expect([...used].sort()).toEqual([...MUTATIONS].sort());
  });

  for (let from = 0; from < CASES; from += BATCH) {
    const to = Math.min(CASES, from + BATCH);
    it(`holds on cases ${SEED + from} to ${SEED + to - 1}`, { timeout: (to - from) * CASE_MS }, async () => {
      for (let i = from; i < to; i++) {
        const c = makeCase(SEED + i, sessions);
        const started = performance.now();
        await checkCase(c, home, platform);
        const ms = performance.now() - started;
        if (ms > CASE_MS)
          throw new Error(`fuzz case ${c.seed} (${c.steps.join(', ')}) took ${Math.round(ms)} ms`);
      }
    });
  }
});
