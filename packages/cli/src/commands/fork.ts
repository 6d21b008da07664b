// cairn fork: a new session holding a session's history up to one item. Where the agent forks its
// own sessions at a cut (Claude Code, from a prompt), the new session is that fork, and it is asked
// the prompt again (or --prompt). Otherwise the history is handed off (to the same agent unless
// --to says otherwise) as a document whose first prompt asks to go on from that point. Either way
// the new session is linked to its origin as a fork, saying which way it was made.
import type { SessionPlatform } from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { bareRuleFlags } from '../run-permissions.js';
import { SELECTION_OPTIONS, selectionArgs } from '../selection-args.js';
import { onePositional, parseCommand, UsageError } from '../usage.js';
import { DEFAULT_HANDOFF_PRESET, handOff, TURN_OPTIONS } from './handoff.js';

const USAGE =
  'cairn fork <ref> --at <item> [--to <agent>] [--agent-id ID] [--preset P | --types a,b,-c] [--prompt "…"] [--cwd DIR] [--mode M] [--model ID] [--allow RULE] [--deny RULE] [--no-redact] [--dry-run] [--json]';

export async function forkCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    bareRuleFlags(argv),
    { ...SELECTION_OPTIONS, at: { type: 'string' }, to: { type: 'string' }, ...TURN_OPTIONS },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  if (values.at === undefined || values.at === '')
    throw new UsageError(`missing --at <item>\nusage: ${USAGE}`);
  for (const range of ['since', 'until', 'since-uuid', 'until-uuid'] as const)
    if (values[range] !== undefined)
      throw new UsageError(
        `--${range} does not go with fork: the history runs from the start to --at\nusage: ${USAGE}`,
      );
  const selected = selectionArgs(values, USAGE);
  return handOff(platform, {
    ref,
    agent: agentOption(values.agent, USAGE),
    to: values.to,
    kind: 'fork',
    selection: {
      ...(selected.preset === undefined && selected.types === undefined
        ? { ...selected, preset: DEFAULT_HANDOFF_PRESET }
        : selected),
      until_uuid: values.at,
    },
    atItem: values.at,
    agentFork:
      selected.preset === undefined && selected.types === undefined && selected.agent_id === undefined,
    turn: values,
    usage: USAGE,
  });
}
