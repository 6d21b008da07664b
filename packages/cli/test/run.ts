// Running the built CLI as a user would, with agent homes on the corpus.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusEnv as corpusAgentEnv } from '../../transcript/test/homes.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** Environment whose agent homes are the corpus, with an empty user home and a fresh CAIRN_HOME. */
export function corpusEnv(): NodeJS.ProcessEnv {
  const env = corpusAgentEnv();
  return { PATH: process.env.PATH, ...env, CAIRN_HOME: join(env.HOME!, '.cairn') };
}

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function cairn(args: string[], env: NodeJS.ProcessEnv): Run {
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
