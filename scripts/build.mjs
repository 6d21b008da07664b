// Bundles each package's entry points with esbuild. Type checking is `npm run typecheck`.
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
  // everything else (workspace packages included) goes in.
  external: ['better-sqlite3', 'playwright-core', 'ws'],
};

const entries = [
  { in: 'packages/transcript/src/index.ts', out: 'packages/transcript/dist/index' },
  // The browser-safe part of the library: classification, selections, presets, Markdown.
  { in: 'packages/transcript/src/items/index.ts', out: 'packages/transcript/dist/items' },
  { in: 'packages/protocol/src/index.ts', out: 'packages/protocol/dist/index' },
  // The session pool starts this file beside whichever bundle it was built into.
  { in: 'packages/transcript/src/worker.ts', out: 'packages/transcript/dist/worker' },
  { in: 'packages/transcript/src/worker.ts', out: 'packages/cli/dist/worker' },
];

await Promise.all([
  ...entries.map((e) => build({ ...common, entryPoints: [{ in: e.in, out: e.out }], outdir: '.' })),
  // The CLI is split per command, so each loads only what it runs. Chunks sit beside main.js
  // because the session pool finds worker.js next to the code that starts it.
  build({
    ...common,
    entryPoints: ['packages/cli/src/main.ts'],
    outdir: 'packages/cli/dist',
    splitting: true,
    chunkNames: '[name]-[hash]',
  }),
]);

// The contract as JSON Schema, for clients in other languages.
await import('../packages/protocol/scripts/export-schema.mjs');
// The web UI the daemon serves.
await import('../packages/web/build.mjs');
