// `cairn show <ref> --at <item>`: the items around one, as a search hit names it, the item itself
// marked, so a hit found in the terminal can be read in its place.
import type { TranscriptItem } from '@cairn/protocol';
import {
  buildDump,
  cairnHome,
  ITEM_ROOTS,
  readDumpPresets,
  type SessionPlatform,
  streamDumpItems,
} from '@cairn/transcript';
import { describeItem } from '../describe-item.js';
import { LineOutput } from '../line-output.js';
import { resolveRef } from '../refs.js';
import { Failure } from '../usage.js';
import { asThrown, load } from './dump.js';

export interface AroundOptions {
  readonly at: string;
  /** Items shown on each side. */
  readonly context: number;
  readonly agentId?: string | undefined;
  readonly json: boolean;
}

/**
 * The items around one, printed while the session is read a part at a time: the last few items are
 * kept until the one asked for comes, and the read stops once the items after it are printed. What
 * the read in parts cannot give (the item is not there, or a later part changed what was read) is
 * read whole, going on after the lines already printed.
 */
export async function showAround(
  platform: SessionPlatform,
  ref: string,
  agent: string | undefined,
  options: AroundOptions,
  usage: string,
): Promise<number> {
  const presets = await readDumpPresets(cairnHome(platform.env, platform.homeDir));
  if (!presets.ok) throw new Failure(presets.error.message);
  const width = (process.stdout.columns ?? 160) - 2;
  const line = (item: TranscriptItem) => {
    if (options.json) return JSON.stringify(item);
    return `${item.uuid === options.at ? '>' : ' '} ${describeItem(item, width)}`;
  };
  const lane = options.agentId === undefined ? {} : { agent_id: options.agentId };
  const out = new LineOutput();
  const before: TranscriptItem[] = [];
  /** Lines printed: the window's first ones. */
  let printed = 0;
  let found = false;
  const { target, head } = await resolveRef(platform, ref, agent);
  const streamed = await streamDumpItems(
    platform,
    target,
    { sid: head?.id ?? '', types: [...ITEM_ROOTS], ...lane },
    presets.value,
    async (item) => {
      if (!found) {
        if (item.uuid !== options.at) {
          before.push(item);
          if (before.length > options.context) before.shift();
          return;
        }
        found = true;
        for (const b of before) await out.line(line(b));
        printed = before.length;
      }
      await out.line(line(item));
      printed++;
      if (printed >= before.length + 1 + options.context) return 'enough';
    },
    { afterPart: () => out.flush() },
  );
  if (!streamed.ok) throw asThrown(streamed.error, usage);
  if (found && !streamed.value.whole) {
    await out.flush();
    return 0;
  }
  // Read whole: the item is not in the lane (the whole read says so), or a later part changed it.
  const { t, sid } = await load(platform, ref, agent);
  const args = { sid, types: [...ITEM_ROOTS], ...lane };
  const built = buildDump(t, args, { presets: presets.value, writtenAt: Date.now() });
  if (!built.ok) throw asThrown(built.error, usage);
  const items = built.value.file.items;
  const i = items.findIndex((item) => item.uuid === options.at);
  if (i < 0) {
    const where = options.agentId === undefined ? 'the session' : `agent ${options.agentId}`;
    throw new Failure(`no item ${options.at} in ${where} of ${sid} (a subagent's item needs --agent-id)`);
  }
  const around = items.slice(Math.max(0, i - options.context), i + options.context + 1);
  for (const item of around.slice(printed)) await out.line(line(item));
  await out.flush();
  return 0;
}
