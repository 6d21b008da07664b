// The redactor's cost on a dump: the reader bench's session of about 30 MB (reader-corpus.mjs),
// loaded once, dumped whole as JSON and as Markdown with and without redaction, runs alternating;
// then the same session with every text made distinct, so that no text is met twice and the
// redactor reads all of it; then `cairn dump` as a user runs it (reading the session included), with
// and without --no-redact. Wall time and the process's CPU time (which the other work on the
// machine disturbs less) are given as medians, with the time redaction adds.
// `node scripts/bench/dump-redact.mjs [--size MB] [--runs N]` (after `npm run build`).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildReaderSession } from './reader-corpus.mjs';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: { size: { type: 'string', default: '30' }, runs: { type: 'string', default: '7' } },
});
// Fewer runs give medians that swing more than the difference measured.
const runs = Math.max(7, Number(values.runs));
const { loadTranscript, nodePlatform, writeDump } = await import(
  join(root, 'packages/transcript/dist/index.js')
);
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const added = (plain, redacted) => {
  const percent = ((redacted - plain) / plain) * 100;
  return `${percent < 0 ? '' : '+'}${percent.toFixed(1)}%`;
};

// Each text field of each line gets the line's number in front, so no two texts are the same.
function distinctTexts(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const out = lines.map((line, n) => line.replace(/"(text|thinking|content)":"/g, `"$1":"${n} `));
  writeFileSync(path, out.join('\n'));
}

const work = mkdtempSync(join(tmpdir(), 'cairn-dump-redact-'));
try {
  const session = buildReaderSession({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
  const env = { ...process.env, ...session.env };
  const platform = nodePlatform({ env, homeDir: env.HOME });
  const path = join(work, 'claude/projects/-bench-reader', `${session.sid}.jsonl`);
  const home = join(work, 'cairn');
  const types = ['message', 'thinking', 'tool', 'attachment'];

  const measure = async (label, transcript, format) => {
    const once = async (redact) => {
      const args = { sid: session.sid, agent: session.agent, types, format, redact };
      const cpu = cpuMs();
      const started = performance.now();
      const written = await writeDump(transcript, args, { home, out: join(work, `dump.${format}`) });
      const ms = performance.now() - started;
      if (!written.ok) throw new Error(written.error.message);
      return { ms, cpu: cpuMs() - cpu, bytes: written.value.bytes, redacted: written.value.redacted };
    };
    await once(true); // warm: the rule set loads on first use
    await once(false);
    const plain = [];
    const redacted = [];
    let last;
    for (let i = 0; i < runs; i++) {
      plain.push(await once(false));
      last = await once(true);
      redacted.push(last);
    }
    const [a, b] = [median(plain.map((r) => r.ms)), median(redacted.map((r) => r.ms))];
    const [ca, cb] = [median(plain.map((r) => r.cpu)), median(redacted.map((r) => r.cpu))];
    console.log(
      `  ${label.padEnd(14)} wall: plain ${a.toFixed(0)} ms, redacted ${b.toFixed(0)} ms, ${added(a, b)}; ` +
        `cpu: ${ca.toFixed(0)} ms, ${cb.toFixed(0)} ms, ${added(ca, cb)} ` +
        `(${(last.bytes / 1024 / 1024).toFixed(1)} MB written, secrets found: ${JSON.stringify(last.redacted)})`,
    );
  };

  console.log(
    `dump with and without redaction: ${(session.bytes / 1024 / 1024).toFixed(1)} MB session, ${runs} runs each, medians`,
  );
  const loaded = await loadTranscript(platform, { agent: session.agent, path });
  if (!loaded.ok) throw new Error(loaded.error.message);
  for (const format of ['json', 'md']) await measure(format, loaded.value, format);

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
  console.log(`  cairn dump     --no-redact ${a.toFixed(0)} ms, redacted ${b.toFixed(0)} ms: ${added(a, b)}`);

  distinctTexts(path);
  const distinct = await loadTranscript(platform, { agent: session.agent, path });
  if (!distinct.ok) throw new Error(distinct.error.message);
  await measure('json, distinct', distinct.value, 'json');
} finally {
  rmSync(work, { recursive: true, force: true });
}
