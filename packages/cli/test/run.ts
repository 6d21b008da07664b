// Running the built CLI as a user would, with agent homes on the corpus.
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listSessions, loadTranscript, nodePlatform, type Transcript } from '@cairn/transcript';
import { corpusEnv as corpusAgentEnv } from '../../transcript/test/homes.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

/** Environment whose agent homes are the corpus, with an empty user home and a fresh CAIRN_HOME. */
export function corpusEnv(): NodeJS.ProcessEnv {
  const env = corpusAgentEnv();
  return { PATH: process.env.PATH, ...env, CAIRN_HOME: join(env.HOME!, '.cairn') };
}

/** Each corpus session as the command reads it (through the same homes, so that event sources name
 * its files as the command's output does), with the arguments that name it to the command. */
export async function* corpusTranscripts(
  env: NodeJS.ProcessEnv,
): AsyncGenerator<{ t: Transcript; id: string; agent: string; ref: string[] }> {
  const platform = nodePlatform({ env: env as Record<string, string>, homeDir: env.HOME! });
  for await (const head of listSessions(platform)) {
    if ('ref' in head) continue;
    const loaded = await loadTranscript(platform, { path: head.path, agent: head.agent, sessionId: head.id });
    if (!loaded.ok) throw new Error(loaded.error.message);
    yield { t: loaded.value, id: head.id, agent: head.agent, ref: [head.id, '--agent', head.agent] };
  }
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
