// cairn show: a session's events, one per line.
import {
  loadTranscript,
  type SessionPlatform,
  streamEvents,
  type Transcript,
  type TranscriptEvent,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { describeEvent } from '../describe.js';
import { LineOutput } from '../line-output.js';
import { progressBar } from '../progress.js';
import { resolveRef } from '../refs.js';
import { SELECTION_OPTIONS, selectionArgs, selects } from '../selection-args.js';
import { Failure, onePositional, parseCommand, UsageError } from '../usage.js';
import { showItems } from './dump.js';
import { showAround } from './show-at.js';

const USAGE =
  'cairn show <ref> [--agent A] [--json] | cairn show <ref> --types a,b,-c [--preset P] [--agent-id ID] [--since T] [--until T] [--json] | cairn show <ref> --at <item> [--agent-id ID] [--context N] [--json]';

export async function showCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { ...SELECTION_OPTIONS, json: { type: 'boolean' }, at: { type: 'string' }, context: { type: 'string' } },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  const agent = agentOption(values.agent, USAGE);
  if (values.context !== undefined && values.at === undefined)
    throw new UsageError(`--context needs --at <item>\nusage: ${USAGE}`);
  if (values.at !== undefined) {
    const { at, context, ...rest } = values;
    if (at === '') throw new UsageError(`--at is empty\nusage: ${USAGE}`);
    if (selects({ ...rest, 'agent-id': undefined }))
      throw new UsageError(`--at shows every item around one: give no selection with it\nusage: ${USAGE}`);
    const n = context === undefined ? 3 : Number(context);
    if (!Number.isInteger(n) || n < 0)
      throw new UsageError(`bad --context '${context}': give a whole number, 0 or more\nusage: ${USAGE}`);
    return showAround(
      platform,
      ref,
      agent,
      { at, context: n, agentId: values['agent-id'], json: values.json ?? false },
      USAGE,
    );
  }
  // A selection turns the view from events to the items a dump of the same selection would hold.
  if (selects(values))
    return showItems(platform, ref, agent, selectionArgs(values, USAGE), values.json ?? false, USAGE);
  const { target } = await resolveRef(platform, ref, agent);
  const out = new LineOutput();
  const width = process.stdout.columns ?? 160;
  const print = (t: Transcript, e: TranscriptEvent) =>
    out.line(values.json ? JSON.stringify(e) : describeEvent(t, e, width));
  // Printed as the session is read, a part at a time; what needs the whole session is read whole,
  // going on after the events already printed.
  const streamed = await streamEvents(platform, target, print, { afterPart: () => out.flush() });
  if (!streamed.ok) throw new Failure(streamed.error.message);
  let skipped = streamed.value.skipped;
  if (streamed.value.whole) {
    const progress = progressBar('reading');
    const loaded = await loadTranscript(platform, target, { onProgress: (b) => progress.update(b) });
    progress.done();
    if (!loaded.ok) throw new Failure(loaded.error.message);
    const t = loaded.value;
    for (const e of t.events.slice(streamed.value.events)) await print(t, e);
    skipped = t.skipped.length;
  }
  if (!values.json && skipped > 0) await out.line(`(${skipped} records produced no event)`);
  await out.flush();
  return 0;
}
