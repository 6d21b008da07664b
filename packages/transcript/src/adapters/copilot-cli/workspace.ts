// `workspace.yaml`, the small metadata file Copilot CLI keeps beside a session's events: flat
// `key: value` lines (`id`, `cwd`, `summary`, `created_at`, …). Only top-level scalars are read:
// plain, quoted, folded onto indented lines, or block (`|`, `>`), which is all such a file holds,
// so no YAML library is needed for it.

export type Workspace = Record<string, string>;

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/;

export function parseWorkspace(text: string): Workspace {
  const out: Workspace = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = KEY.exec(lines[i]!);
    if (!m) continue;
    const key = m[1]!;
    const first = (m[2] ?? '').trim();
    const rest: string[] = [];
    while (i + 1 < lines.length && /^(\s|$)/.test(lines[i + 1]!) && !KEY.test(lines[i + 1]!)) {
      rest.push(lines[++i]!);
    }
    while (rest.length > 0 && rest[rest.length - 1]!.trim() === '') rest.pop();
    const value = scalar(first, rest);
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function scalar(first: string, rest: string[]): string | undefined {
  const block = /^([|>])([+-]?)$/.exec(first);
  if (block) {
    const indent = Math.min(
      ...rest.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length),
    );
    const body = rest.map((l) => l.slice(Number.isFinite(indent) ? indent : 0));
    const text = block[1] === '|' ? body.join('\n') : foldLines(body);
    return block[2] === '+' ? `${text}\n` : text;
  }
  const joined = [first, ...rest.map((l) => l.trim())].join(' ').trim();
  if (joined.startsWith("'")) {
    const end = joined.lastIndexOf("'");
    return end > 0 ? joined.slice(1, end).replace(/''/g, "'") : undefined;
  }
  if (joined.startsWith('"')) {
    const end = joined.lastIndexOf('"');
    if (end <= 0) return undefined;
    try {
      return JSON.parse(joined.slice(0, end + 1)) as string;
    } catch {
      return joined.slice(1, end);
    }
  }
  if (joined === '' || joined === '~' || joined === 'null') return undefined;
  // A plain scalar ends where a comment starts.
  return joined.replace(/\s+#.*$/, '');
}

/** `>` folding: lines join with a space, an empty line stands for a newline. */
function foldLines(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (line.trim() === '') out += '\n';
    else out += out === '' || out.endsWith('\n') ? line : ` ${line}`;
  }
  return out;
}
