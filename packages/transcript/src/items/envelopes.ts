// The markup agents wrap injected text in (`<command-name>`, `<task-notification>`, …), read as fields.

/** The text between `<tag>` and `</tag>`, trimmed; undefined when the tag is absent. */
export function tagText(text: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const start = text.indexOf(open);
  if (start === -1) return undefined;
  const end = text.indexOf(`</${tag}>`, start + open.length);
  return text.slice(start + open.length, end === -1 ? undefined : end).trim();
}

/** The value of `name="…"` (or `name='…'`) inside the first `<tag …>` opening. */
export function tagAttribute(text: string, tag: string, name: string): string | undefined {
  const start = text.indexOf(`<${tag}`);
  if (start === -1) return undefined;
  const close = text.indexOf('>', start);
  const head = text.slice(start, close === -1 ? undefined : close);
  const m = new RegExp(`\\b${name}=(?:"([^"]*)"|'([^']*)')`).exec(head);
  return m ? (m[1] ?? m[2]) : undefined;
}

export interface SlashCommand {
  command?: string;
  args?: string;
  stdout?: string;
}

/** A slash command's name, arguments and output from its markup; each part only when present. */
export function slashCommandOf(text: string): SlashCommand {
  const out: SlashCommand = {};
  const name = tagText(text, 'command-name');
  if (name) out.command = name;
  const args = tagText(text, 'command-args') || tagText(text, 'command-message');
  if (args) out.args = args;
  const stdout = tagText(text, 'local-command-stdout') ?? tagText(text, 'local-command-stderr');
  if (stdout !== undefined) out.stdout = stdout;
  return out;
}

export interface TaskNotification {
  taskId?: string;
  toolUseId?: string;
  status?: string;
  summary?: string;
  result?: string;
}

/** The fields of a `<task-notification>` (a background task or an agent reporting back). */
export function taskNotificationOf(text: string): TaskNotification {
  const out: TaskNotification = {};
  const taskId = tagText(text, 'task-id');
  if (taskId) out.taskId = taskId;
  const toolUseId = tagText(text, 'tool-use-id');
  if (toolUseId) out.toolUseId = toolUseId;
  const status = tagText(text, 'status') ?? tagText(text, 'event');
  if (status) out.status = status;
  const summary = tagText(text, 'summary');
  if (summary) out.summary = summary;
  const result = tagText(text, 'result');
  if (result !== undefined) out.result = result;
  return out;
}

/** Text that opens the caveat Claude Code writes before the output of local commands. */
export const isCaveat = (text: string): boolean => {
  const t = text.trimStart();
  return t.startsWith('<local-command-caveat>') || t.startsWith('Caveat: The messages below were generated');
};

/** The prompt Claude Code writes to resume a paused workflow. */
export const isWorkflowResume = (text: string): boolean =>
  text.trimStart().startsWith('Resume the paused workflow by calling: Workflow(');

/** A message another session sent, as Claude Code wraps it. */
export const isCrossSessionMessage = (text: string): boolean => text.includes('<cross-session-message');
