// Tool calls and their outputs: arguments, output text and whether the tool failed.
import { parseJson } from '../../depth.js';
import { isObject, type Json, num, str } from './records.js';

/** A function call's arguments: the JSON they encode when they parse, else the text as written. */
export function callInput(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  const t = args.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return args;
  try {
    return parseJson(t);
  } catch {
    return args;
  }
}

export interface ToolOutput {
  output: unknown;
  exitCode?: number;
  failed: boolean;
}

// Unified exec output starts with a header that names the exit code before `Output:`.
const EXIT_LINE = /^Process exited with code (-?\d+)$/m;

/**
 * The output of a function_call_output or custom_tool_call_output. Shell tools of some
 * generations wrap it as JSON text `{output, metadata: {exit_code}}`; unified exec writes a
 * text header with the exit code; newer generations may write content items or
 * `{content, success}`.
 */
export function toolOutput(raw: unknown): ToolOutput {
  if (typeof raw === 'string') {
    const t = raw.trimStart();
    if (t.startsWith('{') && t.includes('"metadata"')) {
      try {
        const v: unknown = parseJson(t);
        if (isObject(v) && isObject(v.metadata)) {
          const exitCode = num(v.metadata.exit_code);
          const output = str(v.output) ?? raw;
          return exitCode === undefined
            ? { output, failed: false }
            : { output, exitCode, failed: exitCode !== 0 };
        }
      } catch {
        // Not the wrapped form: the text is the output.
      }
    }
    const header = raw.slice(0, 1000);
    const cut = header.indexOf('\nOutput:');
    const m = EXIT_LINE.exec(cut === -1 ? header : header.slice(0, cut));
    if (m) {
      const exitCode = Number(m[1]);
      return { output: raw, exitCode, failed: exitCode !== 0 };
    }
    return { output: raw, failed: false };
  }
  if (Array.isArray(raw)) {
    const texts = raw.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : []));
    return { output: texts.length === raw.length ? texts.join('\n') : raw, failed: false };
  }
  if (isObject(raw) && 'content' in raw) {
    const inner = toolOutput(raw.content);
    return { ...inner, failed: inner.failed || raw.success === false };
  }
  return { output: raw, failed: false };
}

/** Whether an event_msg that ends a tool (exec, patch, MCP) says the tool failed. */
export function endFailed(sub: string, p: Json): boolean {
  if (sub === 'exec_command_end') {
    const code = num(p.exit_code);
    return code !== undefined && code !== 0;
  }
  if (sub === 'patch_apply_end') return p.success === false;
  if (sub === 'mcp_tool_call_end') {
    const r = p.result;
    return isObject(r) && ('Err' in r || (isObject(r.Ok) && r.Ok.isError === true));
  }
  return false;
}

/** The output an ending event_msg carries, for when no response item records the result. */
export function endOutput(sub: string, p: Json): unknown {
  if (sub === 'exec_command_end')
    return str(p.aggregated_output) ?? str(p.formatted_output) ?? [str(p.stdout), str(p.stderr)].join('');
  if (sub === 'patch_apply_end') return [str(p.stdout), str(p.stderr)].join('');
  if (sub === 'mcp_tool_call_end') return p.result;
  return undefined;
}

export const TOOL_END_TYPES: ReadonlySet<string> = new Set([
  'exec_command_end',
  'patch_apply_end',
  'mcp_tool_call_end',
]);
