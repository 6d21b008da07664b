// cairn export: a whole session, every item of it (attachments included), written as one JSON or
// Markdown file through the dump writer, or as one static HTML page; its secrets redacted unless
// --no-redact says otherwise.
import { dirname, join, resolve } from 'node:path';
import type { SessionDumpWriteArgs, TranscriptItem } from '@cairn/protocol';
import {
  agentHomes,
  BUILTIN_PRESETS,
  buildDump,
  cairnHome,
  ITEM_ROOTS,
  insideAny,
  type RedactionCounts,
  readDumpPresets,
  redactValue,
  type SessionPlatform,
  type Transcript,
  writeAtomic,
  writeDump,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { type HtmlLane, renderHtml } from '../export-html.js';
import { bytes } from '../format.js';
import { Failure, onePositional, parseCommand, UsageError } from '../usage.js';
import { asThrown, load, redactionLine } from './dump.js';

const USAGE = 'cairn export <ref> [--agent A] --format html|md|json [--no-redact] [--out FILE] [--json]';
const FORMATS = ['html', 'md', 'json'] as const;

export async function exportCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      agent: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean' },
      'no-redact': { type: 'boolean' },
    },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  const agent = agentOption(values.agent, USAGE);
  const format = values.format;
  if (format === undefined) throw new UsageError(`missing --format: give html, md or json\nusage: ${USAGE}`);
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`bad --format '${format}': give html, md or json\nusage: ${USAGE}`);
  if (values.out === '') throw new UsageError(`--out is empty\nusage: ${USAGE}`);
  const home = cairnHome(platform.env, platform.homeDir);
  const presets = await readDumpPresets(home);
  if (!presets.ok) throw new Failure(presets.error.message);

  const { t, sid, path } = await load(platform, ref, agent);
  const forbidden = [...agentHomes(platform).flatMap((a) => a.homes), dirname(path)];
  if (format === 'html') {
    const r = await exportHtml(t, sid, { home, out: values.out, forbidden, redact: !values['no-redact'] });
    if (values.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    else
      process.stdout.write(
        `wrote ${r.path} (${r.items} items, ${bytes(r.bytes)})\n${redactionLine(r.redacted)}\n`,
      );
    return 0;
  }
  const args: SessionDumpWriteArgs = {
    sid,
    agent: t.agent,
    // Every root type: the whole session, where a dump's default leaves attachments out.
    types: [...ITEM_ROOTS],
    format: format as 'md' | 'json',
    redact: !values['no-redact'],
  };
  const written = await writeDump(t, args, { home, out: values.out, forbidden, presets: presets.value });
  if (!written.ok) throw asThrown(written.error, USAGE);
  const r = written.value;
  if (values.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return 0;
  }
  const total = Object.values(r.entries).reduce((a, b) => a + b, 0);
  process.stdout.write(`wrote ${r.path} (${total} items, ${bytes(r.bytes)})\n${redactionLine(r.redacted)}\n`);
  return 0;
}

interface HtmlWritten {
  path: string;
  bytes: number;
  items: number;
  redacted?: RedactionCounts;
}

/** Every item of the session and of each subagent's lane, as the dump builder classifies them. */
function itemsOf(
  t: Transcript,
  sid: string,
  agentId?: string,
): { items: TranscriptItem[]; agents: Array<{ id: string; label?: string }> } {
  const args = { sid, types: [...ITEM_ROOTS], ...(agentId === undefined ? {} : { agent_id: agentId }) };
  const built = buildDump(t, args, { presets: BUILTIN_PRESETS, writtenAt: Date.now() });
  if (!built.ok) throw new Failure(built.error.message);
  const agents = built.value.file.ids
    .filter((e) => e.kind === 'agent')
    .map((e) => ({ id: e.id, ...(e.label === undefined ? {} : { label: e.label }) }));
  return { items: built.value.file.items, agents };
}

async function exportHtml(
  t: Transcript,
  sid: string,
  o: { home: string; out: string | undefined; forbidden: string[]; redact: boolean },
): Promise<HtmlWritten> {
  const main = itemsOf(t, sid);
  const lanes: HtmlLane[] = [];
  const seen = new Set<string>();
  // Lanes as the session started them, each once, and the lanes they started in turn.
  const queue = [...main.agents];
  while (queue.length > 0) {
    const a = queue.shift()!;
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    const lane = itemsOf(t, sid, a.id);
    lanes.push({ agentId: a.id, label: a.label, items: lane.items });
    queue.push(...lane.agents);
  }
  let content = { items: main.items, lanes };
  let redacted: RedactionCounts | undefined;
  if (o.redact) {
    const r = await redactValue(content);
    content = r.value;
    redacted = r.counts;
  }
  const head = t.session;
  const html = renderHtml({
    agent: t.agent,
    sid,
    title: head.title,
    cwd: head.cwd,
    items: content.items,
    lanes: content.lanes,
    redaction: redactionLine(redacted),
  });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const path =
    o.out === undefined
      ? join(o.home, 'dumps', `${sid.replace(/[^A-Za-z0-9._-]/g, '_')}-${stamp}.export.html`)
      : resolve(o.out);
  const refused = await insideAny(path, o.forbidden);
  if (refused !== undefined)
    throw new Failure(`refusing to write ${path}: it is inside ${refused}, which belongs to an agent`);
  const written = await writeAtomic(path, html);
  if (!written.ok) throw new Failure(written.error.message);
  const items = content.items.length + content.lanes.reduce((n, l) => n + l.items.length, 0);
  return { path, bytes: Buffer.byteLength(html), items, ...(redacted && { redacted }) };
}
