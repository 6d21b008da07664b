// Builds the web UI into a folder: index.html, assets/app.js (the Preact app), assets/app.css, and
// chunks the app loads on demand (the syntax highlighter) beside them.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { checksPlugin } from './checks-plugin.mjs';

const here = dirname(fileURLToPath(import.meta.url));

export async function buildWeb({ outDir = join(here, 'dist'), minify = true } = {}) {
  await rm(outDir, { recursive: true, force: true });
  await mkdir(join(outDir, 'assets'), { recursive: true });
  await build({
    entryPoints: [
      { in: join(here, 'src/main.tsx'), out: 'app' },
      { in: join(here, 'src/styles/app.css'), out: 'app' },
    ],
    outdir: join(outDir, 'assets'),
    bundle: true,
    // What is imported dynamically (the highlighter) becomes a chunk of its own, off the first screen.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'browser',
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16.4'],
    conditions: ['source'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [checksPlugin],
  });
  await copyFile(join(here, 'index.html'), join(outDir, 'index.html'));
  return outDir;
}
