// Hand-made Claude Code sessions, written the way Claude Code writes them (one JSON record per line
// under `projects/<flattened cwd>/<sid>.jsonl`), for what the corpus does not hold: hostile text, a
// session that grows while a test watches, one with tens of thousands of items.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SessionWriter {
  readonly sid: string;
  readonly path: string;
  /** Records as lines, each ending in a newline. */
  prompt(text: string): string;
  say(text: string): string;
  bash(command: string, output: string, options?: { error?: boolean }): string;
  /** A Write call that creates `filePath` with `content`, and its result. */
  write(filePath: string, content: string): string;
  /** Appends lines to the session's file. */
  append(lines: string): void;
}

export function claudeSession(
  claudeDir: string,
  cwd: string,
  sid: string,
  startAt = Date.parse('2026-03-01T10:00:00Z'),
) {
  const dir = join(claudeDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${sid}.jsonl`);
  writeFileSync(path, '');
  let n = 0;
  let clock = startAt;
  let parent: string | null = null;
  const base = () => {
    n++;
    clock += 1000;
    const uuid = `${sid.slice(0, 8)}-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const record = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd,
      sessionId: sid,
      version: '2.1.39',
      gitBranch: 'main',
      uuid,
      timestamp: new Date(clock).toISOString(),
    };
    parent = uuid;
    return record;
  };
  const line = (record: object) => `${JSON.stringify(record)}\n`;
  const assistant = (content: object[]) => {
    const r = base();
    return line({
      ...r,
      type: 'assistant',
      requestId: `req_${r.uuid}`,
      message: {
        id: `msg_${r.uuid}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content,
        stop_reason: 'end_turn',
        usage: {
          input_tokens: 10 + n,
          output_tokens: 5,
          cache_read_input_tokens: 1000 + n * 10,
          cache_creation_input_tokens: 0,
        },
      },
    });
  };
  const writer: SessionWriter = {
    sid,
    path,
    prompt: (text) => line({ ...base(), type: 'user', message: { role: 'user', content: text } }),
    say: (text) => assistant([{ type: 'text', text }]),
    bash: (command, output, options = {}) => {
      const id = `toolu_${sid.slice(0, 8)}_${n + 1}`;
      const use = assistant([
        { type: 'tool_use', id, name: 'Bash', input: { command, description: 'run it' } },
      ]);
      const result = line({
        ...base(),
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: id, content: output, is_error: options.error === true },
          ],
        },
        toolUseResult: options.error
          ? `Error: ${output}`
          : { stdout: output, stderr: '', interrupted: false, isImage: false },
      });
      return use + result;
    },
    write: (filePath, content) => {
      const id = `toolu_${sid.slice(0, 8)}_${n + 1}`;
      const use = assistant([
        { type: 'tool_use', id, name: 'Write', input: { file_path: filePath, content } },
      ]);
      const result = line({
        ...base(),
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: id, content: `File created successfully at: ${filePath}` },
          ],
        },
        toolUseResult: { type: 'create', filePath, content, structuredPatch: [] },
      });
      return use + result;
    },
    append: (lines) => appendFileSync(path, lines),
  };
  return writer;
}
