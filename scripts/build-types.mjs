// Declarations of the library the package exports (`cairn/transcript`, `cairn/protocol`) into
// dist/types. The workspace names (`@cairn/…`) exist only in this repository, so imports of
// them become relative paths to the declarations beside them. Run when packing.
import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist/types');
// Where each workspace entry's declarations land (tsc keeps the folders under packages/).
const entries = {
  '@cairn/protocol': 'protocol/src/index.js',
  '@cairn/transcript': 'transcript/src/index.js',
  '@cairn/transcript/items': 'transcript/src/items/index.js',
};

await rm(out, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
// Checking is `npm run typecheck`'s job; this only writes declarations.
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.types.json'), '--noCheck'], {
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);

const files = (await readdir(out, { recursive: true })).filter((f) => f.endsWith('.d.ts'));
const specifier = /(from\s+|import\(\s*)(['"])(@cairn\/[^'"]+)\2/g;
const leaks = [];
for (const file of files) {
  const path = join(out, file);
  const text = await readFile(path, 'utf8');
  const rewritten = text.replace(specifier, (whole, lead, quote, name) => {
    const target = entries[name];
    if (target === undefined) return whole;
    let rel = relative(dirname(path), join(out, target)).split(sep).join('/');
    if (!rel.startsWith('.')) rel = `./${rel}`;
    return `${lead}${quote}${rel}${quote}`;
  });
  if (rewritten.includes('@cairn/')) leaks.push(file);
  if (rewritten !== text) await writeFile(path, rewritten);
}
if (leaks.length > 0) {
  console.error(`build-types: workspace names left in ${leaks.join(', ')}`);
  process.exit(1);
}
