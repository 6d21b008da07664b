// Builds the web UI into a folder: index.html, assets/app.js (the Preact app) and assets/app.css.
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
