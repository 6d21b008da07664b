// Which language a file or a fenced block is written in, by the names highlight.js registers. Kept
// apart from the highlighter itself so that asking costs nothing before its chunk has loaded.

const BY_EXTENSION: Readonly<Record<string, string>> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  json: 'json',
  jsonl: 'json',
  css: 'css',
  scss: 'scss',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  heex: 'xml',
  vue: 'xml',
  md: 'markdown',
  markdown: 'markdown',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  go: 'go',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  lua: 'lua',
  sql: 'sql',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  ex: 'elixir',
  exs: 'elixir',
  erl: 'erlang',
  diff: 'diff',
  patch: 'diff',
};

const BY_NAME: Readonly<Record<string, string>> = {
  dockerfile: 'dockerfile',
  makefile: 'makefile',
};

/** The language of a file from its name, or undefined when it is not one the highlighter knows. */
export function languageOfPath(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const byName = BY_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? undefined : BY_EXTENSION[name.slice(dot + 1)];
}

// Names people write after ``` that differ from the highlighter's.
const ALIASES: Readonly<Record<string, string>> = {
  js: 'javascript',
  ts: 'typescript',
  tsx: 'typescript',
  jsx: 'javascript',
  sh: 'bash',
  shell: 'bash',
  zsh: 'bash',
  console: 'bash',
  py: 'python',
  rb: 'ruby',
  rs: 'rust',
  yml: 'yaml',
  html: 'xml',
  heex: 'xml',
  toml: 'ini',
  md: 'markdown',
  ex: 'elixir',
  exs: 'elixir',
  golang: 'go',
  'c++': 'cpp',
  'c#': 'csharp',
  patch: 'diff',
  text: 'plaintext',
  txt: 'plaintext',
};

/** The language a fenced block names (` ```ts `), as the highlighter calls it. */
export function languageOfFence(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const lower = name.toLowerCase();
  return ALIASES[lower] ?? lower;
}
