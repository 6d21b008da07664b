// cairn presets: the dump presets this cairn knows, built-in and from $CAIRN_HOME/config.json.
import type { DumpPresetsReadResult } from '@cairn/protocol';
import { cairnHome, readDumpPresets, type SessionPlatform } from '@cairn/transcript';
import { Failure, noPositionals, parseCommand } from '../usage.js';

const USAGE = 'cairn presets [--json]';

export async function presetsCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: 'boolean' } }, USAGE);
  noPositionals(positionals, USAGE);
  const presets = await readDumpPresets(cairnHome(platform.env, platform.homeDir));
  if (!presets.ok) throw new Failure(presets.error.message);
  if (values.json) {
    const result: DumpPresetsReadResult = { presets: presets.value };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...presets.value.map((p) => p.name.length));
  const lines: string[] = [];
  for (const p of presets.value) {
    lines.push(`${p.name.padEnd(width)}  ${p.description ?? ''}`.trimEnd());
    lines.push(`${' '.repeat(width)}  ${p.opts.types.join(',')}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
