// A bench's measuring half, written in TypeScript beside the tests' support files, bundled to run in
// a fresh node process: written beside the build, so that the packages left outside the bundle
// (native or large ones) resolve from the project. Each run prints its figures as a last line of JSON.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Bundles `scripts/bench/<name>.ts` under `root`; answers the bundle's path. */
export async function bundleMeasure(root, name, external) {
  const outfile = join(root, `node_modules/.cache/cairn-bench/${name}.mjs`);
  await build({
    entryPoints: [join(root, `scripts/bench/${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['source'],
    logLevel: 'warning',
    external,
  });
  return outfile;
}

/** Runs the bundle with `args` (and `env` over this process's) from `root`; answers its last line's JSON. */
export function runMeasure(root, bundle, args, env = {}) {
  const out = execFileSync(process.execPath, [bundle, ...args.map(String)], {
    cwd: root,
    env: { ...process.env, ...env, CAIRN_BENCH_ROOT: root },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.trim().split('\n').pop());
}
