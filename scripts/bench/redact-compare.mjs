// Does a change to the redactor change what it writes? Builds the library twice from this working
// tree, once as it is and once with the redactor (packages/transcript/src/redact/ and the dump's
// batching in dump-stream.ts) taken from a git revision, then compares: the redacted JSON and
// Markdown dump of every corpus session, byte for byte (the time of writing aside), and the texts
// and counts of both redactors over every session's strings with the labelled secrets and
// near-misses planted among them. Exits non-zero on any difference.
// `node scripts/bench/redact-compare.mjs [--base REV]` (REV defaults to HEAD).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({ options: { base: { type: 'string', default: 'HEAD' } } });
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
const REDACTOR = ['packages/transcript/src/redact/', 'packages/transcript/src/dump-stream.ts'];
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });

const work = mkdtempSync(join(tmpdir(), 'cairn-redact-compare-'));
try {
  // The revision's redactor files, laid out as in the tree.
  const baseDir = join(work, 'base-src');
  for (const path of git('ls-tree', '-r', '--name-only', values.base, '--', ...REDACTOR).split('\n')) {
    if (!path) continue;
    mkdirSync(dirname(join(baseDir, path)), { recursive: true });
    writeFileSync(join(baseDir, path), git('show', `${values.base}:${path}`));
  }
  const inRedactor = (path) => REDACTOR.some((p) => relative(root, path).startsWith(p));
  // Resolves the redactor's own files to the revision's copies; everything else is this tree's.
  const fromBase = {
    name: 'redactor-from-base',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const here = args.importer.startsWith(baseDir)
          ? join(root, relative(baseDir, args.importer))
          : args.importer;
        const target = resolve(dirname(here), args.path).replace(/\.js$/, '.ts');
        if (inRedactor(target)) return { path: join(baseDir, relative(root, target)) };
        // A file of the revision's redactor importing the rest of the tree.
        return here === args.importer ? undefined : { path: target };
      });
    },
  };
  const entry = join(work, 'entry.ts');
  writeFileSync(
    entry,
    [
      `export * from ${JSON.stringify(join(root, 'packages/transcript/src/index.ts'))};`,
      `export { secrets, nearMisses } from ${JSON.stringify(join(root, 'packages/transcript/test/redact-labelled.ts'))};`,
    ].join('\n'),
  );
  const bundle = async (name, plugins) => {
    const outfile = join(root, 'node_modules/.cache/redact-compare', `${name}.mjs`);
    await build({
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['source'],
      logLevel: 'warning',
      external: ['better-sqlite3', 'playwright-core', 'tinypool', 'ws', '@sinclair/typebox'],
      nodePaths: [join(root, 'packages/transcript/node_modules'), join(root, 'node_modules')],
      entryPoints: [entry],
      outfile,
      plugins,
    });
    return import(outfile);
  };
  const before = await bundle('base', [fromBase]);
  const after = await bundle('tree', []);

  const home = join(work, 'home');
  mkdirSync(home);
  symlinkSync(join(source, 'gemini'), join(home, '.gemini'));
  const env = {
    HOME: home,
    CLAUDE_CONFIG_DIR: join(source, 'claude'),
    CODEX_HOME: join(source, 'codex'),
    GEMINI_CLI_HOME: home,
  };
  const platform = after.nodePlatform({ homeDir: home, env });
  const types = ['message', 'thinking', 'tool', 'attachment'];
  const planted = [...after.secrets().map((s) => s.text), ...after.nearMisses()];
  const withoutTime = (text) => text.replace(/"written_at": \d+/g, '').replace(/^- written: .*$/m, '');
  let sessions = 0;
  let differences = 0;
  let plantedSoFar = 0;
  const found = { before: 0, after: 0 };
  for await (const e of after.listSessions(platform)) {
    if ('ref' in e) continue;
    sessions++;
    const loaded = await after.loadTranscript(platform, { agent: e.agent, path: e.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    for (const format of ['json', 'md']) {
      const texts = [];
      for (const [name, lib] of [
        ['before', before],
        ['after', after],
      ]) {
        const out = join(work, `${name}.${format}`);
        const args = { sid: e.id, agent: e.agent, types, format, redact: true };
        const written = await lib.writeDump(loaded.value, args, { home: join(work, 'cairn'), out });
        if (!written.ok) throw new Error(written.error.message);
        texts.push(withoutTime(readFileSync(out, 'utf8')));
      }
      if (texts[0] !== texts[1]) {
        differences++;
        console.log(`  differs: ${e.agent} ${e.id} ${format}`);
      }
    }
    const built = after.buildDump(
      loaded.value,
      { sid: e.id, types },
      { presets: after.BUILTIN_PRESETS, writtenAt: 0 },
    );
    if (!built.ok) throw new Error(built.error.message);
    const strings = [];
    const gather = (v) => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) for (const x of v) gather(x);
      else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) gather(x);
    };
    gather(built.value.file);
    const mixed = strings.map((t, i) => {
      if (i % 25 !== 3) return t;
      const at = t.length >> 1;
      return `${t.slice(0, at)}\n${planted[plantedSoFar++ % planted.length]}\n${t.slice(at)}`;
    });
    const [a, b] = [await before.redactTexts(mixed), await after.redactTexts(mixed)];
    found.before += Object.values(a.counts).reduce((x, y) => x + y, 0);
    found.after += Object.values(b.counts).reduce((x, y) => x + y, 0);
    if (JSON.stringify(a) !== JSON.stringify(b)) {
      differences++;
      console.log(`  differs with secrets planted: ${e.agent} ${e.id}`);
    }
  }
  console.log(
    `redactor of ${values.base} against this tree: ${sessions} corpus sessions, ${sessions * 2} redacted dumps ` +
      `and ${sessions} planted sets compared, ${differences} differences; ` +
      `${plantedSoFar} texts planted, secrets redacted ${found.before} before and ${found.after} after`,
  );
  if (differences > 0 || sessions === 0) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
  rmSync(join(root, 'node_modules/.cache/redact-compare'), { recursive: true, force: true });
}
