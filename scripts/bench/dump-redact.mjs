// The redactor's cost on a dump: the reader bench's session of about 30 MB (reader-corpus.mjs),
// loaded once, dumped whole as JSON and as Markdown with and without redaction, runs alternating;
// then `cairn dump` as a user runs it (reading the session included), with and without --no-redact.
// `node scripts/bench/dump-redact.mjs [--size MB] [--runs N]` (after `npm run build`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildReaderSession } from './reader-corpus.mjs';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: { size: { type: 'string', default: '30' }, runs: { type: 'string', default: '5' } },
});
const runs = Number(values.runs);
const { loadTranscript, nodePlatform, writeDump } = await import(
  join(root, 'packages/transcript/dist/index.js')
);
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');

const work = mkdtempSync(join(tmpdir(), 'cairn-dump-redact-'));
try {
  const session = buildReaderSession({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
  const env = { ...process.env, ...session.env };
  const platform = nodePlatform({ env, homeDir: env.HOME });
  const path = join(work, 'claude/projects/-bench-reader', `${session.sid}.jsonl`);
  const loaded = await loadTranscript(platform, { agent: session.agent, path });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const home = join(work, 'cairn');
  const types = ['message', 'thinking', 'tool', 'attachment'];

  const once = async (format, redact) => {
    const args = { sid: session.sid, agent: session.agent, types, format, redact };
    const started = performance.now();
    const written = await writeDump(loaded.value, args, { home, out: join(work, `dump.${format}`) });
    const ms = performance.now() - started;
    if (!written.ok) throw new Error(written.error.message);
    return { ms, bytes: written.value.bytes, redacted: written.value.redacted };
  };

  console.log(
    `dump with and without redaction: ${(session.bytes / 1024 / 1024).toFixed(1)} MB session, ${runs} runs each`,
  );
  for (const format of ['json', 'md']) {
    await once(format, true); // warm: the rule set loads on first use
    const plain = [];
    const redacted = [];
    let last;
    for (let i = 0; i < runs; i++) {
      plain.push((await once(format, false)).ms);
      last = await once(format, true);
      redacted.push(last.ms);
    }
    const a = median(plain);
    const b = median(redacted);
    console.log(
      `  ${format.padEnd(5)} plain ${a.toFixed(0)} ms, redacted ${b.toFixed(0)} ms: +${(((b - a) / a) * 100).toFixed(1)}% ` +
        `(${(last.bytes / 1024 / 1024).toFixed(1)} MB written, secrets found: ${JSON.stringify(last.redacted)})`,
    );
  }

  const cli = (extra) => {
    const started = performance.now();
    execFileSync(
      process.execPath,
      [join(root, 'bin/cairn.js'), 'dump', session.sid, '--out', join(work, 'cli.json'), ...extra],
      {
        env: { ...env, CAIRN_HOME: home },
      },
    );
    return performance.now() - started;
  };
  const plain = [];
  const redacted = [];
  for (let i = 0; i < runs; i++) {
    plain.push(cli(['--no-redact']));
    redacted.push(cli([]));
  }
  const a = median(plain);
  const b = median(redacted);
  console.log(
    `  cairn dump: --no-redact ${a.toFixed(0)} ms, redacted ${b.toFixed(0)} ms: +${(((b - a) / a) * 100).toFixed(1)}%`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
