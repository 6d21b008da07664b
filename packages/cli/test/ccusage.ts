// ccusage, pinned, installed for the tests into a cache folder beside the build (never a project
// dependency: its binaries for other platforms are missing from the registry, which npm ci
// refuses), as the bench installs it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CCUSAGE_VERSION = '20.0.24';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The ccusage executable, installed on first use; undefined when it cannot be installed here. */
export function ccusageBin(): string | undefined {
  const prefix = join(root, 'node_modules/.cache/cairn-test/ccusage');
  const bin = join(prefix, 'node_modules/.bin/ccusage');
  if (existsSync(bin)) return bin;
  const r = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `ccusage@${CCUSAGE_VERSION}`],
    { encoding: 'utf8' },
  );
  return r.status === 0 && existsSync(bin) ? bin : undefined;
}

/** ccusage's JSON for `args`, run with `env` as its whole environment. */
export function ccusageJson(bin: string, args: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const r = spawnSync(bin, [...args, '--json', '--offline'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`ccusage ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}
