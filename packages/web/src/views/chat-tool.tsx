// A tool call's input and result as the agent gave them, drawn with the reader's renderers: a shell
// command as a command, an edit or a patch as a diff, a written file as its lines, anything else as
// JSON or text.
import type { JSX } from 'preact';
import { diffLines, trimContext } from '../timeline/diff.js';
import { editPairs, firstLine, isObject, textOf } from '../timeline/item.js';
import { TextBlock } from './fold.js';
import { DiffView, PatchView } from './rows.js';

type Loose = Record<string, unknown>;

/** A call's one line: its command, its file, or its input in short. */
export function argsSummary(args: Loose | undefined): string {
  if (!args || Object.keys(args).length === 0) return '';
  const cmd = shellLine(args);
  if (cmd !== undefined) return firstLine(cmd, 200);
  const path = args.file_path ?? args.path ?? args.absolute_path ?? args.filePath ?? args.url ?? args.pattern;
  if (typeof path === 'string') return path;
  return firstLine(JSON.stringify(args), 160);
}

function shellLine(args: Loose): string | undefined {
  const c = args.command ?? args.cmd;
  if (typeof c === 'string') return c;
  if (Array.isArray(c) && c.every((p) => typeof p === 'string')) {
    const parts = c as string[];
    if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && parts[1]?.startsWith('-'))
      return parts[2];
    return parts.join(' ');
  }
  return undefined;
}

function patchIn(args: Loose): string | undefined {
  for (const v of Object.values(args)) if (typeof v === 'string' && v.includes('*** Begin Patch')) return v;
  return undefined;
}

export function ArgsView({ args }: { args: unknown }) {
  if (args === undefined || args === null) return null;
  if (isObject(args) && Object.keys(args).length === 0) return null;
  if (!isObject(args)) return <TextBlock text={textOf(args) ?? ''} className="json" />;
  const cmd = shellLine(args);
  if (cmd !== undefined) return <TextBlock text={`$ ${cmd}`} className="cmd" />;
  const pairs = editPairs(args);
  if (pairs) {
    return (
      <div class="diffs">
        {pairs.map((p, i) => (
          <DiffView key={i} lines={trimContext(diffLines(p.old, p.new))} />
        ))}
      </div>
    );
  }
  const patch = patchIn(args);
  if (patch) return <PatchView patch={patch} />;
  if (typeof args.content === 'string' && typeof (args.file_path ?? args.path) === 'string') {
    return (
      <div class="diffs">
        <div class="patch-path">{String(args.file_path ?? args.path)}</div>
        <DiffView lines={trimContext(diffLines('', args.content), 0).slice(0, 400)} />
      </div>
    );
  }
  return <TextBlock text={JSON.stringify(args, null, 2)} className="json" />;
}

/** A result in whichever shape the agent gave it: text, content blocks, diffs, or any JSON. */
export function ResultView({ result, isError }: { result: unknown; isError: boolean }) {
  const cls = isError ? 'stderr' : 'output';
  if (result === undefined || result === null || result === '') return <p class="muted small">no output</p>;
  if (typeof result === 'string') return <TextBlock text={result} className={cls} />;
  const blocks = Array.isArray(result)
    ? result
    : isObject(result) && Array.isArray(result.content)
      ? result.content
      : undefined;
  if (blocks) {
    const parts: JSX.Element[] = [];
    blocks.forEach((b, i) => {
      if (!isObject(b)) return;
      if (b.type === 'diff' && typeof b.newText === 'string') {
        parts.push(
          <div key={i} class="diffs">
            {typeof b.path === 'string' && <div class="patch-path">{b.path}</div>}
            <DiffView
              lines={trimContext(diffLines(typeof b.oldText === 'string' ? b.oldText : '', b.newText))}
            />
          </div>,
        );
        return;
      }
      const inner = isObject(b.content) ? b.content : b;
      const text = typeof inner.text === 'string' ? inner.text : textOf(inner);
      if (text) parts.push(<TextBlock key={i} text={text} className={cls} />);
    });
    if (parts.length > 0) return <>{parts}</>;
  }
  if (isObject(result)) {
    for (const k of ['output', 'stdout', 'text']) {
      const v = result[k];
      if (typeof v === 'string') return <TextBlock text={v} className={cls} />;
    }
  }
  return <TextBlock text={JSON.stringify(result, null, 2)} className={`json ${cls}`} />;
}
