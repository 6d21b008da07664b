// cairn dump: writes a session's items (or one subagent's), as selected, to a file under
// $CAIRN_HOME/dumps or where --out says; `cairn show --types` prints the same items instead.
import { dirname } from 'node:path';
import type {
  DumpPreset,
  SessionDumpWriteArgs,
  SessionDumpWriteResult,
  TranscriptItem,
} from '@cairn/protocol';
import {
  agentHomes,
  buildDump,
  cairnHome,
  describeRedactions,
  loadTranscript,
  presetLookup,
  readDumpPresets,
  type SessionHead,
  type SessionPlatform,
  selection,
  streamDumpItems,
  type Transcript,
  type WriteDumpError,
  writeDump,
  writeDumpStreamed,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { describeItem } from '../describe-item.js';
import { bytes } from '../format.js';
import { LineOutput } from '../line-output.js';
import { progressBar } from '../progress.js';
import { resolveRef } from '../refs.js';
import { SELECTION_OPTIONS, type SelectionArgs, selectionArgs } from '../selection-args.js';
import { Failure, onePositional, parseCommand, UsageError } from '../usage.js';

const USAGE =
  'cairn dump <ref> [--agent-id ID] [--types a,b,-c] [--preset P] [--since T] [--until T] [--since-uuid U] [--until-uuid U] [--no-thinking] [--no-agent] [--format json|md] [--no-redact] [--out FILE] [--json]';

export async function dumpCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      ...SELECTION_OPTIONS,
      format: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      'no-redact': { type: 'boolean' },
    },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  const agent = agentOption(values.agent, USAGE);
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'md')
    throw new UsageError(`bad --format '${format}': give json or md\nusage: ${USAGE}`);
  if (values.out === '') throw new UsageError(`--out is empty\nusage: ${USAGE}`);
  const selected = selectionArgs(values, USAGE);
  const home = cairnHome(platform.env, platform.homeDir);
  const presets = await checkedPresets(home, selected, USAGE);

  const r = await writeStreamedOrWhole(platform, ref, agent, {
    ...selected,
    format,
    redact: !values['no-redact'],
    home,
    out: values.out,
    presets,
  });

  if (values.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return 0;
  }
  const total = Object.values(r.entries).reduce((a, b) => a + b, 0);
  const lines = [`wrote ${r.path} (${total} items, ${bytes(r.bytes)})`, redactionLine(r.redacted)];
  const width = Math.max(0, ...Object.keys(r.entries).map((k) => k.length));
  for (const [type, n] of Object.entries(r.entries).sort((a, b) => b[1] - a[1]))
    lines.push(`  ${type.padEnd(width)}  ${String(n).padStart(6)}`);
  const agents = r.ids.filter((e) => e.kind === 'agent');
  if (agents.length > 0) {
    lines.push('agents started (dump one with --agent-id ID):');
    for (const a of agents) {
      const took = a.duration_ms === undefined ? '' : ` ${(a.duration_ms / 1000).toFixed(1)} s`;
      lines.push(`  ${a.id}  ${a.status ?? ''}${took}  ${a.label ?? ''}`.trimEnd());
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/**
 * The dump written while the session is read a part at a time, or from the whole session when the
 * request or the session needs that (a subagent's dump, bounds by record).
 */
async function writeStreamedOrWhole(
  platform: SessionPlatform,
  ref: string,
  agent: string | undefined,
  ask: SelectionArgs & {
    format: 'json' | 'md';
    redact: boolean;
    home: string;
    out: string | undefined;
    presets: DumpPreset[];
  },
): Promise<SessionDumpWriteResult> {
  const { format, redact, home, out, presets, ...selected } = ask;
  const { target, head } = await resolveRef(platform, ref, agent);
  const forbidden = [...agentHomes(platform).flatMap((a) => a.homes), dirname(target.path)];
  const progress = progressBar('reading');
  const streamed = await writeDumpStreamed(
    platform,
    target,
    { sid: head?.id, ...selected, format, redact },
    { home, out, forbidden, presets, onProgress: (b) => progress.update(b) },
  );
  progress.done();
  if (streamed !== 'whole') {
    if (!streamed.ok) throw asThrown(streamed.error, USAGE);
    return streamed.value;
  }
  const { t, sid } = await load(platform, ref, agent);
  const args: SessionDumpWriteArgs = { sid, agent: t.agent, ...selected, format, redact };
  const written = await writeDump(t, args, { home, out, forbidden, presets });
  if (!written.ok) throw asThrown(written.error, USAGE);
  return written.value;
}

/** What the redactor replaced, or that the dump holds the session's text as it is. */
export function redactionLine(redacted: Record<string, number> | undefined): string {
  if (redacted === undefined) return 'not redacted: secrets are written as the session holds them';
  const n = Object.values(redacted).reduce((a, b) => a + b, 0);
  if (n === 0) return 'redacted: no secrets found';
  return `redacted ${n} secret${n === 1 ? '' : 's'}: ${describeRedactions(redacted)}`;
}

/** `cairn show <ref> --types …`: the items the same selection keeps, one per line. */
export async function showItems(
  platform: SessionPlatform,
  ref: string,
  agent: string | undefined,
  selected: SelectionArgs,
  json: boolean,
  usage: string,
): Promise<number> {
  const presets = await checkedPresets(cairnHome(platform.env, platform.homeDir), selected, usage);
  const width = process.stdout.columns ?? 160;
  const out = new LineOutput();
  const print = (item: TranscriptItem) => out.line(json ? JSON.stringify(item) : describeItem(item, width));
  // Printed as the session is read, a part at a time; what needs the whole session is read whole,
  // going on after the items already printed.
  const { target, head } = await resolveRef(platform, ref, agent);
  const streamed = await streamDumpItems(
    platform,
    target,
    { sid: head?.id ?? '', ...selected },
    presets,
    print,
    {
      afterPart: () => out.flush(),
    },
  );
  if (!streamed.ok) throw asThrown(streamed.error, usage);
  if (streamed.value.whole) {
    const { t, sid } = await load(platform, ref, agent);
    const built = buildDump(t, { sid, ...selected }, { presets, writtenAt: Date.now() });
    if (!built.ok) throw asThrown(built.error, usage);
    for (const item of built.value.file.items.slice(streamed.value.items)) await print(item);
  }
  await out.flush();
  return 0;
}

/** The configured presets, once the selection asked for is known to expand over them. */
async function checkedPresets(home: string, selected: SelectionArgs, usage: string): Promise<DumpPreset[]> {
  const presets = await readDumpPresets(home);
  if (!presets.ok) throw new Failure(presets.error.message);
  const sel = selection(selected, presetLookup(presets.value));
  if (!sel.ok) throw new UsageError(`${sel.error.message}\nusage: ${usage}`);
  return presets.value;
}

export async function load(
  platform: SessionPlatform,
  ref: string,
  agent: string | undefined,
): Promise<{ t: Transcript; sid: string; path: string; head?: SessionHead }> {
  const { target, head } = await resolveRef(platform, ref, agent);
  const progress = progressBar('reading');
  const loaded = await loadTranscript(platform, target, { onProgress: (b) => progress.update(b) });
  progress.done();
  if (!loaded.ok) throw new Failure(loaded.error.message);
  return {
    t: loaded.value,
    sid: head?.id ?? loaded.value.session.id,
    path: target.path,
    ...(head ? { head } : {}),
  };
}

/** A request the arguments got wrong is a usage error; anything else is a failure. */
export function asThrown(
  error: WriteDumpError | { readonly _tag: string; readonly message: string },
  usage: string,
): Error {
  if (error._tag === 'DumpInvalidArgs') return new UsageError(`${error.message}\nusage: ${usage}`);
  return new Failure(error.message);
}
