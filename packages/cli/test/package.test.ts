// The published package: `npm pack` of the repository, installed into an empty prefix and run
// from a folder outside the work tree, with a home of its own, as someone who never cloned it would.
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDemoHome } from '../../server/src/demo/demo-home.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const tarballName = `cairn-${version}.tgz`;

interface PackedFile {
  path: string;
  size: number;
}

let work: string;
let home: string;
let prefix: string;
let installed: string;
let packed: PackedFile[];
let npmEnv: NodeJS.ProcessEnv;
let userEnv: NodeJS.ProcessEnv;
const servers: ChildProcess[] = [];

function run(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = work): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>): string {
  if (r.status !== 0) throw new Error(`exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const cairn = (args: string[], env = userEnv) => run(join(prefix, 'bin', 'cairn'), args, env);

/** What npm itself is configured with (its cache, its user config), read before HOME moves. */
const npmConfig = (key: string): string => ok(run('npm', ['config', 'get', key], process.env, root)).trim();

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cairn-package-'));
  home = join(work, 'home');
  prefix = join(work, 'prefix');
  mkdirSync(home);
  const cache = npmConfig('cache');
  const userconfig = npmConfig('userconfig');

  // Nothing of the work tree reaches the commands: no npm variables of a surrounding `npm test`,
  // no PATH entry inside the repository, no agent homes; HOME, CAIRN_HOME and TMPDIR are new.
  const base: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || key === 'INIT_CWD') continue;
    const homes = ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'QWEN_HOME', 'QWEN_RUNTIME_DIR'];
    if ([...homes, 'XDG_CONFIG_HOME', 'CAIRN_HOME'].includes(key)) continue;
    if (key === 'PI_CODING_AGENT_DIR' || key === 'PI_CODING_AGENT_SESSION_DIR') continue;
    if (key === 'COPILOT_HOME') continue;
    if (key === 'OPENCODE_DATA_DIR' || key === 'KILO_DATA_DIR' || key === 'XDG_DATA_HOME') continue;
    if (key === 'CAIRN_TOKEN' || key === 'CAIRN_CORPUS') continue;
    base[key] = value;
  }
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((p) => p !== '' && !`${resolve(p)}${sep}`.startsWith(`${root}${sep}`));
  const tmp = join(work, 'tmp');
  mkdirSync(tmp);
  userEnv = {
    ...base,
    HOME: home,
    CAIRN_HOME: join(home, '.cairn'),
    TMPDIR: tmp,
    PATH: [join(prefix, 'bin'), ...path].join(delimiter),
  };
  // The SQLite binding this checkout already built stands in for a prebuilt download, so the
  // install does not compile SQLite once more (without it, better-sqlite3 builds as it always does).
  const prebuilds = join(work, 'prebuilds');
  const binding = join(root, 'node_modules/better-sqlite3');
  const sqlite = JSON.parse(readFileSync(join(binding, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(prebuilds);
  const archive = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  if (existsSync(join(binding, 'build/Release/better_sqlite3.node'))) {
    ok(
      run(
        'tar',
        ['-czf', join(prebuilds, archive), '-C', binding, 'build/Release/better_sqlite3.node'],
        base,
      ),
    );
  }
  npmEnv = {
    ...userEnv,
    npm_config_cache: cache,
    npm_config_userconfig: userconfig,
    npm_config_better_sqlite3_local_prebuilds: prebuilds,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };

  // `npm pack` builds through `prepare`; here the build is the one `npm test` just made (a build
  // now would rewrite files other suites are reading), and only the declarations are written.
  if (!existsSync(join(root, 'packages/cli/dist/main.js')))
    ok(run(process.execPath, ['scripts/build.mjs'], process.env, root));
  ok(run(process.execPath, ['scripts/build-types.mjs'], process.env, root));
  const pack = JSON.parse(
    ok(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], npmEnv, root)),
  ) as { filename: string; files: PackedFile[] }[];
  expect(pack).toHaveLength(1);
  expect(pack[0]!.filename).toBe(tarballName);
  packed = pack[0]!.files;

  ok(run('npm', ['install', '--global', '--prefix', prefix, `./${tarballName}`], npmEnv));
  installed = join(prefix, 'lib/node_modules/cairn');
}, 600_000);

afterAll(() => {
  for (const server of servers) server.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the package', () => {
  it('packs built code, declarations, the web UI and the schema, without tests, sources or source maps', () => {
    const paths = packed.map((f) => f.path);
    const allowed = [
      /^(package\.json|README\.md|bin\/cairn\.js)$/,
      /^packages\/(cli|transcript|protocol)\/dist\/[^/]+\.js$/,
      /^packages\/protocol\/dist\/cairn-protocol\.schema\.json$/,
      /^packages\/web\/dist\/(index\.html|assets\/[^/]+\.(js|css))$/,
      /^dist\/types\/(protocol|transcript)\/src\/.+\.d\.ts$/,
    ];
    expect(paths.filter((p) => !allowed.some((a) => a.test(p)))).toEqual([]);
    expect(paths.filter((p) => /(^|\/)(test|tests|__tests__|corpus)\//.test(p))).toEqual([]);
    expect(paths.filter((p) => /\.test\.|\.map$|\.jsonl|\.zst$/.test(p))).toEqual([]);
    expect(paths.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([]);
    for (const needed of [
      'bin/cairn.js',
      'packages/cli/dist/main.js',
      'packages/cli/dist/worker.js',
      'packages/transcript/dist/index.js',
      'packages/transcript/dist/worker.js',
      'packages/protocol/dist/index.js',
      'packages/protocol/dist/cairn-protocol.schema.json',
      'packages/web/dist/index.html',
      'packages/web/dist/assets/app.js',
      'dist/types/transcript/src/index.d.ts',
      'dist/types/protocol/src/index.d.ts',
    ]) {
      expect(paths).toContain(needed);
    }
    // Workspace names exist only in the repository: no published import or declaration names one.
    const leaks = paths
      .filter((p) => p.endsWith('.js') || p.endsWith('.d.ts'))
      .filter((p) => /(from\s*|import\(\s*)["']@cairn\//.test(readFileSync(join(installed, p), 'utf8')));
    expect(leaks).toEqual([]);
  });

  it('installs its runtime dependencies and no build or test tool', () => {
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@sinclair/typebox',
      'better-sqlite3',
      'pg',
      'tinypool',
      'ws',
    ]);
    const modules = readdirSync(join(installed, 'node_modules'));
    // The PostgreSQL client stays outside the bundle, so `serve --database` needs it installed.
    expect(modules).toContain('pg');
    for (const tool of ['typescript', 'vitest', 'esbuild', 'vite', '@biomejs', '@types', 'playwright-core']) {
      expect(modules).not.toContain(tool);
    }
    expect(modules).not.toContain('@cairn');
  });

  it('prints its version and its help', () => {
    expect(ok(cairn(['--version'])).trim()).toBe(version);
    const help = ok(cairn(['--help']));
    expect(help).toMatch(/^cairn — /);
    expect(help).toContain('cairn serve');
    expect(help).toContain('cairn --version');
  });

  it('says where it looked when the machine has no sessions', () => {
    const r = cairn(['sessions']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no sessions found');
    for (const folder of ['.claude', '.config/claude', '.codex', '.gemini'])
      expect(r.stderr).toContain(join(home, folder));
    const summary = cairn(['summary', '--all', '--json']);
    expect(summary.status).toBe(0);
    expect(JSON.parse(summary.stdout)).toMatchObject({ sessions: [], errors: [] });
  });

  it('lists and summarizes sessions from the installed files, its worker beside the pool that starts it', () => {
    const pool = packed
      .map((f) => f.path)
      .filter((p) => p.startsWith('packages/cli/dist/'))
      .filter((p) => readFileSync(join(installed, p), 'utf8').includes('"./worker.js"'));
    expect(pool.length).toBeGreaterThan(0);
    for (const chunk of pool) expect(existsSync(join(installed, dirname(chunk), 'worker.js'))).toBe(true);
    const demo = makeDemoHome();
    try {
      const env = { ...userEnv, ...demo.env };
      const listed = JSON.parse(ok(cairn(['sessions', '--json'], env))) as { sessions: { id: string }[] };
      expect(listed.sessions.length).toBeGreaterThanOrEqual(4);
      const all = JSON.parse(ok(cairn(['summary', '--all', '--json'], env))) as {
        sessions: { summary: { turns: number } }[];
        errors: unknown[];
      };
      expect(all.errors).toEqual([]);
      expect(all.sessions).toHaveLength(listed.sessions.length);
      expect(all.sessions.every((s) => s.summary.turns > 0)).toBe(true);
      expect(ok(cairn(['summary', '--all'], env))).toContain(listed.sessions[0]!.id);
    } finally {
      demo.remove();
    }
  });

  it('serves the web UI on demo sessions and answers requests that carry its token', async () => {
    const server = spawn(join(prefix, 'bin', 'cairn'), ['serve', '--port', '0'], {
      cwd: work,
      env: userEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    servers.push(server);
    let stdout = '';
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = await new Promise<URL>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no address printed\n${stdout}\n${stderr}`)), 60_000);
      server.once('exit', (code) => fail(new Error(`serve exited ${code}\n${stdout}\n${stderr}`)));
      server.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const found = /serving at (\S+)/.exec(stdout);
        if (found) {
          clearTimeout(timer);
          done(new URL(found[1]!));
        }
      });
    });
    const token = url.searchParams.get('token');
    expect(token).toMatch(/^[0-9a-f]{16,}$/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(new URL(script!, url))).status).toBe(200);
    const alive = new URL('/alive', url);
    expect((await fetch(alive)).status).toBe(401);
    expect((await fetch(alive, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(204);
    expect(stderr).toContain('demo sessions');
    const exited = new Promise<number | null>((done) => server.once('exit', done));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 120_000);

  it('runs through npx from the tarball without installing', () => {
    // npx keeps what it installs in npm's cache under a name made from the spec alone, so a copy
    // left by an earlier tarball of the same name would stand in for this one: none is kept.
    const spec = `./${tarballName}`;
    removeNpxCopies(spec);
    try {
      const r = run('npx', ['--yes', spec, 'sessions'], npmEnv);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('no sessions found');
      expect(r.stderr).toContain(join(home, '.codex'));
    } finally {
      removeNpxCopies(spec);
    }
  }, 300_000);

  it('gives other projects the library and the contract, with types', () => {
    const project = join(work, 'consumer');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(installed, join(project, 'node_modules', 'cairn'), 'dir');
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          outDir: 'out',
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['main.ts'],
      }),
    );
    writeFileSync(join(project, 'main.ts'), CONSUMER);
    // Declarations are checked too (no skipLibCheck), TypeBox's among them.
    ok(
      run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], userEnv, project),
    );
    const out = JSON.parse(ok(run(process.execPath, ['out/main.js', home], userEnv, project)));
    expect(out).toEqual({
      sessions: 0,
      op: 'ping',
      badField: '/extra',
      schema: 'object',
      selection: 'function',
    });
  }, 300_000);
});

function removeNpxCopies(spec: string): void {
  const folder = join(npmEnv.npm_config_cache!, '_npx');
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder)) {
    const manifest = join(folder, name, 'package.json');
    if (!existsSync(manifest)) continue;
    const { _npx } = JSON.parse(readFileSync(manifest, 'utf8')) as { _npx?: { packages?: string[] } };
    if (_npx?.packages?.includes(spec)) rmSync(join(folder, name), { recursive: true, force: true });
  }
}

const CONSUMER = `import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type OpName, validateRequest } from 'cairn/protocol';
import { listSessions, nodePlatform, type SessionHead } from 'cairn/transcript';
import { selectionOf } from 'cairn/transcript/items';

const home = process.argv[2] ?? '';
const heads: SessionHead[] = [];
for await (const entry of listSessions(nodePlatform({ env: { HOME: home }, homeDir: home }))) {
  if (!('ref' in entry)) heads.push(entry);
}
const good = validateRequest({ op: 'ping', request_id: 'r1' });
const bad = validateRequest({ op: 'ping', request_id: 'r2', extra: 1 });
const op: OpName | undefined = good.ok ? good.op : undefined;
const schemaFile = createRequire(import.meta.url).resolve('cairn/protocol/schema.json');
const schema: unknown = JSON.parse(readFileSync(schemaFile, 'utf8'));
console.log(JSON.stringify({
  sessions: heads.length,
  op,
  badField: bad.ok ? null : bad.error.field,
  schema: typeof schema,
  selection: typeof selectionOf,
}));
`;
