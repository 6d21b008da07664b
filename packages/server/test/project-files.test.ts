// The files `@` offers and the paths a prompt may attach: relative to the project folder, without
// .git, node_modules and what .gitignore names, bounded, and never a way out of the folder.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listProjectFiles, ProjectFileError, resolveProjectFile } from '../src/chat/project-files.js';

let scratch: string;
let root: string;

const put = (path: string, text = 'x') => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'cairn-files-'));
  root = join(scratch, 'project');
  for (const path of [
    'README.md',
    'src/main.ts',
    'src/util/format.ts',
    'src/generated/schema.ts',
    'docs/main-guide.md',
    'node_modules/lib/index.js',
    '.git/config',
    'build/out.js',
    'notes.log',
    'deep/a/b/c/main.rs',
  ])
    put(path);
  writeFileSync(join(root, '.gitignore'), '# built\n/build/\n*.log\nsrc/generated\n!keep.log\n');
  writeFileSync(join(scratch, 'secret.txt'), 'outside');
  symlinkSync(join(scratch, 'secret.txt'), join(root, 'secret-link.txt'));
  symlinkSync(scratch, join(root, 'parent-link'));
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the project files @ offers', () => {
  it('lists files relative to the folder, skipping .git, node_modules, ignored paths and links', async () => {
    const { files, truncated } = await listProjectFiles(root);
    expect(truncated).toBe(false);
    expect([...files].sort()).toEqual(
      [
        '.gitignore',
        'README.md',
        'deep/a/b/c/main.rs',
        'docs/main-guide.md',
        'src/main.ts',
        'src/util/format.ts',
      ].sort(),
    );
  });

  it('puts names that start with the query first, then names and paths that hold it', async () => {
    const { files } = await listProjectFiles(root, 'MAIN');
    expect(files).toEqual(['src/main.ts', 'deep/a/b/c/main.rs', 'docs/main-guide.md']);
    expect((await listProjectFiles(root, 'util')).files).toEqual(['src/util/format.ts']);
    expect((await listProjectFiles(root, 'nothing-like-it')).files).toEqual([]);
  });

  it('says when more matched than it lists', async () => {
    const { files, truncated } = await listProjectFiles(root, '', 2);
    expect(files).toHaveLength(2);
    expect(truncated).toBe(true);
  });
});

describe('a path a prompt attaches', () => {
  it('resolves a file of the folder', async () => {
    expect(await resolveProjectFile(root, 'src/main.ts')).toMatch(/project\/src\/main\.ts$/);
  });

  it.each([
    ['../secret.txt', /not a path inside/],
    ['/etc/passwd', /not a path inside/],
    ['src/../../secret.txt', /not a path inside/],
    ['secret-link.txt', /leads outside/],
    ['parent-link/secret.txt', /leads outside/],
    ['src', /not a file/],
    ['missing.ts', /not in the project folder/],
  ])('refuses %s, saying why', async (path, why) => {
    const refusal = resolveProjectFile(root, path);
    await expect(refusal).rejects.toBeInstanceOf(ProjectFileError);
    await expect(refusal).rejects.toThrow(why);
  });
});
