// Bundles each package's entry points with esbuild. Type checking is `npm run typecheck`; the
// library's declarations for the published package are `scripts/build-types.mjs`.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['source'],
  sourcemap: 'linked',
  logLevel: 'warning',
  // Native addons and CommonJS packages with dynamic requires stay outside the bundle;
  // everything else (workspace packages included) goes in. These are the package's runtime
  // dependencies.
  external: ['better-sqlite3', 'pg', 'playwright-core', 'tinypool', 'ws'],
};

// The library (`cairn/transcript`, `cairn/protocol`) leaves TypeBox to the package's dependency:
// its declarations name TypeBox's types, and a caller checking values against the contract's
// schemas then uses the same TypeBox.
const library = { ...common, external: [...common.external, '@sinclair/typebox'] };

const entries = [
  { in: 'packages/transcript/src/index.ts', out: 'packages/transcript/dist/index' },
  // The browser-safe part of the library: classification, selections, presets, Markdown.
  { in: 'packages/transcript/src/items/index.ts', out: 'packages/transcript/dist/items' },
  { in: 'packages/protocol/src/index.ts', out: 'packages/protocol/dist/index' },
  // The session pool starts this file beside whichever bundle it was built into.
  { in: 'packages/transcript/src/worker.ts', out: 'packages/transcript/dist/worker' },
];

const cliDir = 'packages/cli/dist';

// The CLI's build id: a hash of every package's sources, so that what one build kept (the summary
// cache) is not taken for another's.
function sourcesHash() {
  const hash = createHash('sha256');
  for (const pkg of readdirSync('packages').sort()) {
    const src = join('packages', pkg, 'src');
    let names;
    try {
      names = readdirSync(src, { recursive: true }).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(src, name);
      let bytes;
      try {
        bytes = readFileSync(path);
      } catch {
        continue; // a folder
      }
      hash.update(`${path}\0${bytes.length}\0`).update(bytes);
    }
  }
  return hash.digest('hex').slice(0, 16);
}
const cliDefine = { CAIRN_BUILD: JSON.stringify(sourcesHash()) };

const [, cli, cliWorker] = await Promise.all([
  Promise.all(entries.map((e) => build({ ...library, entryPoints: [e], outdir: '.' }))),
  // The CLI is split per command, so each loads only what it runs. Chunks sit beside main.js
  // because the session pool finds worker.js next to the code that starts it.
  build({
    ...common,
    entryPoints: ['packages/cli/src/main.ts'],
    outdir: cliDir,
    splitting: true,
    chunkNames: '[name]-[hash]',
    metafile: true,
    define: cliDefine,
  }),
  build({
    ...common,
    entryPoints: [
      { in: 'packages/transcript/src/worker.ts', out: 'worker' },
      // The daemon's cold index reads sessions on this one, found beside the catalog's chunk.
      { in: 'packages/server/src/indexing/index-worker.ts', out: 'index-worker' },
      // Searches run on this one, found beside the catalog's chunk too.
      { in: 'packages/server/src/indexing/search-worker.ts', out: 'search-worker' },
    ],
    outdir: cliDir,
    metafile: true,
  }),
]);

// Chunk names change with their content, so the files of earlier builds are removed and the
// folder (which the package ships) holds this build alone. They go only once the new files are
// written, so the folder never lacks a chunk that main.js names.
const written = new Set(
  [cli, cliWorker].flatMap((r) => Object.keys(r.metafile.outputs).map((path) => resolve(path))),
);
for (const name of await readdir(cliDir)) {
  const path = resolve(cliDir, name);
  if (!written.has(path)) await rm(path, { recursive: true, force: true });
}

// The contract as JSON Schema, for clients in other languages.
await import('../packages/protocol/scripts/export-schema.mjs');
// The web UI the daemon serves.
await import('../packages/web/build.mjs');
