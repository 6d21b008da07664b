// `npm run fuzz -- --cases N [--seed S]`: the fuzz suite of `npm test` with more cases, from any seed.
// A failure names the seed of its case, which replays it: `npm run fuzz -- --cases 1 --seed <seed>`.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { cases: { type: 'string', default: '10000' }, seed: { type: 'string', default: '1' } },
});
for (const [name, v] of Object.entries(values)) {
  if (!/^\d+$/.test(v)) {
    process.stderr.write(`fuzz: --${name} takes a whole number, not '${v}'\n`);
    process.exit(2);
  }
}
const run = spawnSync('npx', ['vitest', 'run', 'packages/server/test/fuzz.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, CAIRN_FUZZ_CASES: values.cases, CAIRN_FUZZ_SEED: values.seed },
});
process.exit(run.status ?? 1);
