// cairn show: a session's events, one per line.
import { loadTranscript, type SessionPlatform } from '@cairn/transcript';
import { describeEvent } from '../describe.js';
import { progressBar } from '../progress.js';
import { resolveRef } from '../refs.js';
import { Failure, onePositional, parseCommand } from '../usage.js';

const USAGE = 'cairn show <ref> [--agent A] [--json]';

export async function showCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { agent: { type: 'string' }, json: { type: 'boolean' } },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  const { target } = await resolveRef(platform, ref, values.agent);
  const progress = progressBar('reading');
  const loaded = await loadTranscript(platform, target, { onProgress: (b) => progress.update(b) });
  progress.done();
  if (!loaded.ok) throw new Failure(loaded.error.message);
  const t = loaded.value;
  const out: string[] = [];
  for (const e of t.events)
    out.push(values.json ? JSON.stringify(e) : describeEvent(t, e, process.stdout.columns ?? 160));
  if (!values.json && t.skipped.length > 0) out.push(`(${t.skipped.length} records produced no event)`);
  process.stdout.write(out.length > 0 ? `${out.join('\n')}\n` : '');
  return 0;
}
