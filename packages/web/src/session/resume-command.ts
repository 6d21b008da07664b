// The command that picks a session up again in its agent's own CLI, in the folder it ran in, for a
// person to paste into a terminal. Each agent's flag was read from its own `--help`.

/** The command line that resumes session `id`, per agent; agents without one are absent. */
const RESUME: Readonly<Record<string, (id: string) => string>> = {
  'claude-code': (id) => `claude --resume ${shellQuote(id)}`,
  codex: (id) => `codex resume ${shellQuote(id)}`,
  'gemini-cli': (id) => `gemini --resume ${shellQuote(id)}`,
  'qwen-code': (id) => `qwen --resume ${shellQuote(id)}`,
  opencode: (id) => `opencode --session ${shellQuote(id)}`,
  kilo: (id) => `kilo --session ${shellQuote(id)}`,
  pi: (id) => `pi --session ${shellQuote(id)}`,
  'copilot-cli': (id) => `copilot --resume ${shellQuote(id)}`,
};

// Words a POSIX shell reads as themselves: nothing in them expands, splits or globs.
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `text` as one word for a POSIX shell: as it is when plain, else in single quotes, where only a
 * single quote needs care (it closes the quotes, is escaped, and they open again). */
export function shellQuote(text: string): string {
  if (PLAIN_WORD.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The command that resumes the session in its folder, or undefined when its agent has none. */
export function resumeCommand(agent: string, id: string, cwd: string | undefined): string | undefined {
  const resume = RESUME[agent];
  if (!resume || id === '') return undefined;
  if (cwd === undefined || cwd === '') return resume(id);
  // `--` so that a folder whose name starts with a dash is not read as an option of cd.
  const dir = cwd.startsWith('-') ? `-- ${shellQuote(cwd)}` : shellQuote(cwd);
  return `cd ${dir} && ${resume(id)}`;
}
