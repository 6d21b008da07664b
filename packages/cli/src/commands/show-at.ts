// `cairn show <ref> --at <item>`: the items around one, as a search hit names it, the item itself
// marked, so a hit found in the terminal can be read in its place.
import { buildDump, cairnHome, ITEM_ROOTS, readDumpPresets, type SessionPlatform } from '@cairn/transcript';
import { describeItem } from '../describe-item.js';
import { Failure } from '../usage.js';
import { asThrown, load } from './dump.js';

export interface AroundOptions {
  readonly at: string;
  /** Items shown on each side. */
  readonly context: number;
  readonly agentId?: string | undefined;
  readonly json: boolean;
}

export async function showAround(
  platform: SessionPlatform,
  ref: string,
  agent: string | undefined,
  options: AroundOptions,
  usage: string,
): Promise<number> {
  const presets = await readDumpPresets(cairnHome(platform.env, platform.homeDir));
  if (!presets.ok) throw new Failure(presets.error.message);
  const { t, sid } = await load(platform, ref, agent);
  const args = {
    sid,
    types: [...ITEM_ROOTS],
    ...(options.agentId === undefined ? {} : { agent_id: options.agentId }),
  };
  const built = buildDump(t, args, { presets: presets.value, writtenAt: Date.now() });
  if (!built.ok) throw asThrown(built.error, usage);
  const items = built.value.file.items;
  const i = items.findIndex((item) => item.uuid === options.at);
  if (i < 0) {
    const lane = options.agentId === undefined ? 'the session' : `agent ${options.agentId}`;
    throw new Failure(`no item ${options.at} in ${lane} of ${sid} (a subagent's item needs --agent-id)`);
  }
  const around = items.slice(Math.max(0, i - options.context), i + options.context + 1);
  const width = (process.stdout.columns ?? 160) - 2;
  const out = around.map((item) => {
    if (options.json) return JSON.stringify(item);
    return `${item.uuid === options.at ? '>' : ' '} ${describeItem(item, width)}`;
  });
  process.stdout.write(`${out.join('\n')}\n`);
  return 0;
}
