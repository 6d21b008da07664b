// The --agent option: a name the catalog knows (an id or one of its aliases), else a usage error
// that lists them, so a typo is never taken for an agent with no sessions.
import { adapterTable, findAdapter } from '@cairn/transcript';
import { UsageError } from './usage.js';

/** The agent asked for, checked; undefined when none was. */
export function agentOption(agent: string | undefined, usage: string): string | undefined {
  if (agent === undefined) return undefined;
  if (findAdapter(agent) !== undefined) return agent;
  const known = adapterTable()
    .map((a) => (a.aliases.length > 0 ? `${a.id} (${a.aliases.join(', ')})` : a.id))
    .join(', ');
  throw new UsageError(`unknown agent '${agent}'; give one of ${known}\nusage: ${usage}`);
}
