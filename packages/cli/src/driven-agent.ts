// An agent `cairn run` or `cairn agents` cannot drive is a usage error naming those it can, as an
// unknown --agent is for the commands that read sessions.
import { readRoster } from '@cairn/runner';
import { nearestName } from './nearest-name.js';
import { UsageError } from './usage.js';

/** The roster's keys, for an agent `cairn run` or `cairn agents` cannot drive. */
export async function unknownDriven(cairnHome: string, agent: string, usage: string): Promise<UsageError> {
  const { bridges } = await readRoster(cairnHome);
  const keys = bridges.map((b) => b.key).join(', ');
  const meant = nearestName(
    agent,
    bridges.map((b) => b.key),
  );
  const hint = meant === undefined ? '' : ` (did you mean ${meant}?)`;
  return new UsageError(`unknown agent '${agent}'${hint}; cairn drives ${keys}\nusage: ${usage}`);
}
