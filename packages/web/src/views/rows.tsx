// One timeline row per item: prompts, assistant text, thinking, tool calls with their results, subagent
// spawns with their lanes, hooks, compactions and everything else the agent recorded.
import type { JSX } from 'preact';
import { memo } from 'preact/compat';
import { useState } from 'preact/hooks';
import { formatClock, formatDateTime, formatDuration } from '../format.js';
import { diffLines, parsePatch, trimContext } from '../timeline/diff.js';
import {
  editPairs,
  field,
  firstLine,
  type Item,
  isErrorResult,
  isResult,
  isShellTool,
  num,
  obj,
  patchText,
  planSteps,
  shellCommand,
  str,
  textOf,
  toolName,
} from '../timeline/item.js';
import type { ItemRow, LaneEdgeRow } from '../timeline/model.js';
import { Fold, type FoldState, Markdown, TextBlock } from './fold.js';
import { callInput, pretty, useRawRecord, type Where } from './raw.js';

export interface RowContext {
  readonly agent: string;
  readonly sid: string;
  readonly folds: FoldState;
  /** Bumps when any fold opens or closes, so memoized rows redraw. */
  readonly foldVersion: number;
  hrefOf(row: ItemRow): string;
  toggleLane(agentId: string, open: boolean): void;
}

const BASE = new Set([
  'uuid',
  'at',
  'turn',
  'source',
  'type',
  'role',
  'result_item',
  'parent_item',
  'tool_use_id',
]);

/** The fields an item has beyond the common ones, for showing a shape nobody wrote a view for. */
function ownFields(item: Item): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!BASE.has(k)) out[k] = v;
  return out;
}

const json = (v: unknown): string => JSON.stringify(v, null, 2);

function Time({ at }: { at: number }) {
  // A time no clock can show is left out rather than taking the row down with it.
  if (Number.isNaN(new Date(at).getTime())) return null;
  return (
    <time class="at" dateTime={new Date(at).toISOString()} title={formatDateTime(at)}>
      {formatClock(at)}
    </time>
  );
}

function Permalink({ href }: { href: string }) {
  return (
    <a class="permalink" href={href} title="link to this item" aria-label="link to this item">
      #
    </a>
  );
}

interface Props {
  readonly row: ItemRow;
  readonly ctx: RowContext;
  readonly target: boolean;
}

export const ItemRowView = memo(
  function ItemRowView({ row, ctx, target }: Props) {
    const { item } = row;
    const family = item.type.split(':', 1)[0];
    const cls = `row item fam-${family} depth-${Math.min(row.depth, 4)}${row.failed ? ' failed' : ''}${target ? ' target' : ''}`;
    return (
      <div class={cls} data-type={item.type} data-uuid={item.uuid} data-lane={row.lane || undefined}>
        <div class="gutter">
          <Time at={item.at} />
          <Permalink href={ctx.hrefOf(row)} />
        </div>
        <div class="content">{body(row, ctx)}</div>
      </div>
    );
  },
  (a, b) =>
    a.row === b.row && a.target === b.target && a.ctx === b.ctx && a.ctx.foldVersion === b.ctx.foldVersion,
);

function body(row: ItemRow, ctx: RowContext): JSX.Element {
  const { item } = row;
  const t = item.type;
  if (t === 'message:user:in') return <UserText row={row} ctx={ctx} />;
  if (t === 'message:user:out') {
    return (
      <>
        <div class="who">
          {row.depth === 0 ? 'Assistant' : 'Subagent'} <CopyButton text={str(item, 'text') ?? ''} />
        </div>
        <Markdown text={str(item, 'text') ?? ''} />
      </>
    );
  }
  if (t === 'thinking') {
    const text = str(item, 'text') ?? '';
    return (
      <Fold
        id={`${row.key}:body`}
        folds={ctx.folds}
        label={<span class="muted">Thinking · {wordCount(text)} words</span>}
      >
        {() => <TextBlock text={text} className="thinking-text" />}
      </Fold>
    );
  }
  if (t === 'message:sub:out') return <Spawn row={row} ctx={ctx} />;
  if (t === 'system:compact') {
    return (
      <div class="compaction">
        <div class="divider">
          <span>Context compacted</span>
        </div>
        <Fold
          id={`${row.key}:body`}
          folds={ctx.folds}
          label={<span class="muted">summary that replaced the context</span>}
        >
          {() => <TextBlock text={str(item, 'text') ?? ''} />}
        </Fold>
      </div>
    );
  }
  if (t.startsWith('hook:')) return <Hook row={row} ctx={ctx} />;
  if (t.startsWith('tool:'))
    return isResult(item) ? <OrphanResult row={row} ctx={ctx} /> : <ToolCall row={row} ctx={ctx} />;
  if (t === 'notice:slash') {
    const stdout = str(item, 'stdout');
    const line = `${str(item, 'command') ?? ''} ${str(item, 'args') ?? ''}`.trim();
    return stdout ? (
      <Fold id={`${row.key}:body`} folds={ctx.folds} label={<code class="slash">{line}</code>}>
        {() => <TextBlock text={stdout} />}
      </Fold>
    ) : (
      <code class="slash">{line}</code>
    );
  }
  if (t === 'notice:interrupt')
    return <div class="notice">⏹ {str(item, 'text') ?? 'Interrupted by the user'}</div>;
  if (t === 'system:api-error') {
    return (
      <div class="api-error">
        <span class="badge err">API error</span> <span>{str(item, 'text') ?? ''}</span>
      </div>
    );
  }
  if (t === 'message:session:in' || t === 'message:session:out') {
    const peer = t.endsWith(':in')
      ? `from ${str(item, 'from') ?? 'another session'}`
      : `to ${str(item, 'to') ?? 'another session'}`;
    return (
      <>
        <div class="who">Message {peer}</div>
        <TextBlock text={str(item, 'text') ?? ''} />
      </>
    );
  }
  if (t === 'message:sub:in') {
    return (
      <>
        <div class="who">Subagent answer</div>
        <Markdown text={str(item, 'text') ?? ''} />
      </>
    );
  }
  const text = str(item, 'text');
  const label = t === 'system:unknown' ? `unknown record ${recordType(item)}` : t;
  return (
    <Fold
      id={`${row.key}:body`}
      folds={ctx.folds}
      className="machinery"
      label={
        <>
          <span class="type-badge">{label}</span>{' '}
          <span class="muted">{text ? firstLine(text, 120) : ''}</span>
        </>
      }
    >
      {() => <TextBlock text={text ?? json(ownFields(item))} />}
    </Fold>
  );
}

function recordType(item: Item): string {
  const record = obj(item, 'record');
  const type = record?.type;
  return typeof type === 'string' ? `(${type})` : '';
}

const wordCount = (text: string): number => text.split(/\s+/).filter((w) => w !== '').length;

/** Copies a message's text as written (Markdown stays Markdown). */
function CopyButton({ text }: { text: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="copy"
      title="copy the text"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'copied' : 'copy'}
    </button>
  );
}

// Prompts longer than this many lines are cut, with a fold for the rest.
const PROMPT_LINES = 24;

function UserText({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const text = str(row.item, 'text') ?? '';
  const lines = text.split('\n');
  const long = lines.length > PROMPT_LINES;
  const open = ctx.folds.isOpen(`${row.key}:body`);
  return (
    <div class="prompt">
      <div class="who">
        {row.depth === 0 ? 'You' : 'Brief'} <CopyButton text={text} />
      </div>
      <TextBlock
        text={long && !open ? lines.slice(0, PROMPT_LINES).join('\n') : text}
        className="prompt-text"
      />
      {long && (
        <button type="button" class="link" onClick={() => ctx.folds.toggle(`${row.key}:body`)}>
          {open ? 'show less' : `show all ${lines.length} lines`}
        </button>
      )}
    </div>
  );
}

function Spawn({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item, result } = row;
  const kind = str(item, 'subagent_type') ?? str(row.agentCall ?? item, 'subagent_type');
  const description = str(item, 'description') ?? str(item, 'name');
  const status = (result && str(result, 'status')) ?? (row.agentResult && str(row.agentResult, 'status'));
  const duration = result ? num(result, 'duration_ms') : undefined;
  return (
    <div class="spawn">
      <div class="spawn-head">
        <span class="badge sub">Subagent</span>
        {kind && <span class="type-badge">{kind}</span>}
        <span class="spawn-desc">{description ?? firstLine(str(item, 'prompt') ?? '', 100)}</span>
        {status && <span class={`muted small status-${status}`}>{status}</span>}
        {duration !== undefined && <span class="muted small">{formatDuration(duration)}</span>}
        {row.spawns !== undefined ? (
          <button
            type="button"
            class={`lane-toggle ${row.open ? 'on' : ''}`}
            aria-expanded={row.open}
            onClick={() => ctx.toggleLane(row.spawns!, !row.open)}
          >
            {row.open ? 'close lane' : 'open lane'} <span class="muted">{row.spawns}</span>
          </button>
        ) : (
          <span class="muted small">{result ? 'no lane recorded' : 'running…'}</span>
        )}
      </div>
      <Fold id={`${row.key}:prompt`} folds={ctx.folds} label={<span class="muted">brief</span>}>
        {() => <TextBlock text={str(item, 'prompt') ?? ''} />}
      </Fold>
      {result && (
        <Fold id={`${row.key}:body`} folds={ctx.folds} label={<span class="muted">answer</span>}>
          {() => <Markdown text={str(result, 'text') ?? ''} />}
        </Fold>
      )}
    </div>
  );
}

function Hook({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item } = row;
  const content = str(item, 'content');
  const stderr = str(item, 'stderr');
  const exit = num(item, 'exit_code');
  const outcome = str(item, 'outcome');
  const label = (
    <>
      <span class="badge hook">hook</span>{' '}
      <span class="hook-name">{str(item, 'hook_name') ?? item.type.slice(5)}</span>{' '}
      <span class="muted small">
        {outcome}
        {exit !== undefined ? ` · exit ${exit}` : ''}
        {num(item, 'duration_ms') !== undefined ? ` · ${formatDuration(num(item, 'duration_ms')!)}` : ''}
      </span>
    </>
  );
  if (!content && !stderr && !str(item, 'command')) return <div class="hook-line">{label}</div>;
  return (
    <Fold id={`${row.key}:body`} folds={ctx.folds} className="hook-line" label={label}>
      {() => (
        <>
          {str(item, 'command') && <TextBlock text={`$ ${str(item, 'command')}`} className="cmd" />}
          {content && <TextBlock text={content} />}
          {stderr && <TextBlock text={stderr} className="stderr" />}
        </>
      )}
    </Fold>
  );
}

/** A call's one-line summary, by tool. */
function callSummary(item: Item): string {
  const name = toolName(item) ?? item.type;
  const input = obj(item, 'input');
  switch (name) {
    case 'Read': {
      const offset = num(item, 'offset');
      const limit = num(item, 'limit');
      const range =
        offset !== undefined || limit !== undefined
          ? ` · lines ${offset ?? 1}–${limit !== undefined ? (offset ?? 1) + limit - 1 : 'end'}`
          : '';
      return `${str(item, 'file_path') ?? ''}${range}`;
    }
    case 'Grep':
    case 'Glob': {
      const path = str(item, 'path');
      return `${str(item, 'pattern') ?? ''}${path ? ` in ${path}` : ''}`;
    }
    case 'Edit':
      return `${str(item, 'file_path') ?? ''}`;
    case 'Write':
      return `${str(item, 'file_path') ?? ''}${num(item, 'lines') !== undefined ? ` · ${num(item, 'lines')} lines` : ''}`;
    case 'WebFetch':
      return str(item, 'url') ?? '';
    case 'WebSearch':
      return str(item, 'query') ?? '';
    case 'Skill':
      return str(item, 'skill') ?? '';
    case 'SendMessage':
      return `to ${str(item, 'to') ?? ''}`;
    case 'Monitor':
      return str(item, 'description') ?? '';
    default:
      break;
  }
  if (isShellTool(name)) return firstLine(shellCommand(item) ?? '', 200);
  const plan = planSteps(item);
  if (plan) {
    const done = plan.filter((p) => p.status === 'completed').length;
    const now = plan.find((p) => p.status === 'in_progress');
    return `${plan.length} steps · ${done} done${now ? ` · now: ${now.text}` : ''}`;
  }
  const patch = patchText(item);
  if (patch) {
    const files = parsePatch(patch);
    return files.map((f) => `${f.action} ${f.path}`).join(', ');
  }
  if (input) {
    const path = input.file_path ?? input.path ?? input.absolute_path ?? input.filePath;
    if (typeof path === 'string') return path;
    return firstLine(JSON.stringify(input), 160);
  }
  return '';
}

/** What a result says in one line: how much it found, or that it failed. */
function resultSummary(item: Item, result: Item | undefined): string {
  if (!result) return 'no result yet';
  if (isErrorResult(result)) return 'failed';
  const name = toolName(item);
  if (name === 'Read' && num(result, 'lines') !== undefined) return `${num(result, 'lines')} lines`;
  if ((name === 'Grep' || name === 'Glob') && num(result, 'matches') !== undefined)
    return `${num(result, 'matches')} matches`;
  if (name === 'Edit' && (num(item, 'old_lines') !== undefined || num(item, 'new_lines') !== undefined)) {
    return `−${num(item, 'old_lines') ?? 0} +${num(item, 'new_lines') ?? 0} lines`;
  }
  if (field(result, 'interrupted') === true) return 'interrupted';
  const out = isShellTool(name)
    ? (str(result, 'stdout') ?? textOf(obj(result, 'result')?.output))
    : undefined;
  if (out !== undefined) {
    const lines = out === '' ? 0 : out.replace(/\n$/, '').split('\n').length;
    return lines === 0 ? 'no output' : `${lines} line${lines === 1 ? '' : 's'} of output`;
  }
  return '';
}

/** Output text of a result, whatever its shape. */
function resultText(result: Item): { out?: string; err?: string } {
  const stdout = str(result, 'stdout');
  const stderr = str(result, 'stderr');
  if (stdout !== undefined || stderr !== undefined) return { out: stdout, err: stderr };
  const generic = obj(result, 'result');
  if (generic) {
    const out = textOf(generic.output ?? generic.content ?? generic);
    return isErrorResult(result) ? { err: out } : { out };
  }
  const text = str(result, 'text');
  if (text !== undefined) return { out: text };
  // What the one-line summary already says (ok, counts, ids) is not repeated as a block.
  const own = ownFields(result);
  for (const k of ['ok', 'interrupted', 'lines', 'bytes', 'matches', 'status', 'agent_id']) delete own[k];
  return Object.keys(own).length > 0 ? { out: json(own) } : {};
}

function ToolCall({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item, result } = row;
  const name = toolName(item) ?? item.type;
  const status = result ? (row.failed ? 'err' : 'ok') : 'pending';
  const summary = resultSummary(item, result);
  const description = str(item, 'description');
  const label = (
    <>
      <span class={`badge tool status-${status}`}>{name}</span>{' '}
      <span class={isShellTool(name) ? 'call-line mono' : 'call-line'}>{callSummary(item)}</span>
      {summary && (
        <span class={`muted small result-summary ${row.failed ? 'err-text' : ''}`}> · {summary}</span>
      )}
      {description && isShellTool(name) && <span class="muted small"> · {description}</span>}
    </>
  );
  return (
    <Fold id={`${row.key}:body`} folds={ctx.folds} className="tool" label={label}>
      {() => <ToolBody row={row} where={{ agent: ctx.agent, sid: ctx.sid, lane: row.lane }} />}
    </Fold>
  );
}

function ToolBody({ row, where }: { row: ItemRow; where: Where }) {
  const { item, result } = row;
  const name = toolName(item) ?? '';
  const input = obj(item, 'input');
  const parts: JSX.Element[] = [];
  if (isShellTool(name)) {
    parts.push(<TextBlock key="cmd" text={`$ ${shellCommand(item) ?? ''}`} className="cmd" />);
  } else if (name === 'Edit' || name === 'MultiEdit' || editPairs(input)) {
    parts.push(<EditDiff key="diff" item={item} where={where} />);
  } else if (patchText(item)) {
    parts.push(<PatchView key="patch" patch={patchText(item)!} />);
  } else if (planSteps(item)) {
    const explanation = input?.explanation;
    if (typeof explanation === 'string') parts.push(<p key="why">{explanation}</p>);
    parts.push(
      <ul key="todos" class="todos">
        {planSteps(item)!.map((t, i) => (
          <li key={i} class={`todo todo-${t.status}`}>
            <span aria-hidden="true">
              {t.status === 'completed' ? '☑' : t.status === 'in_progress' ? '◐' : '☐'}
            </span>{' '}
            {t.text}
          </li>
        ))}
      </ul>,
    );
  } else if (name === 'Write') {
    parts.push(<WriteBody key="write" item={item} where={where} />);
  } else if (input || !['Read', 'Grep', 'Glob'].includes(name)) {
    parts.push(<TextBlock key="input" text={json(input ?? ownFields(item))} className="json" />);
  }
  if (result) {
    const { out, err } = resultText(result);
    if (out) parts.push(<TextBlock key="out" text={out} className="output" />);
    if (err) parts.push(<TextBlock key="err" text={err} className="stderr" />);
  }
  parts.push(<RawRecord key="raw" item={item} where={where} />);
  return <>{parts}</>;
}

export function DiffView({ lines }: { lines: ReturnType<typeof trimContext> }) {
  return (
    <pre class="diff">
      {lines.map((l, i) => (
        <div
          key={i}
          class={`dl ${l.op === '+' ? 'add' : l.op === '-' ? 'del' : l.op === '…' ? 'skip' : 'ctx'}`}
        >
          <span class="op" aria-hidden="true">
            {l.op === '…' ? ' ' : l.op}
          </span>
          {l.text}
        </div>
      ))}
    </pre>
  );
}

function EditDiff({ item, where }: { item: Item; where: Where }) {
  const own = editPairs(obj(item, 'input')) ?? editPairs(item as unknown as Record<string, unknown>);
  const raw = useRawRecord(where, item, own === undefined);
  let pairs = own;
  if (!pairs && raw?.state === 'ready') pairs = editPairs(callInput(raw.record, str(item, 'tool_use_id')));
  if (!pairs) {
    if (raw?.state === 'error') return <p class="muted small">Could not read the edit: {raw.message}</p>;
    if (raw?.state === 'ready')
      return <p class="muted small">The record holds no before and after for this edit.</p>;
    return <p class="muted small">reading the edit…</p>;
  }
  return (
    <div class="diffs">
      {pairs.map((p, i) => (
        <DiffView key={i} lines={trimContext(diffLines(p.old, p.new))} />
      ))}
    </div>
  );
}

function WriteBody({ item, where }: { item: Item; where: Where }) {
  const raw = useRawRecord(where, item, true);
  if (raw?.state !== 'ready')
    return <p class="muted small">{raw?.state === 'error' ? raw.message : 'reading the file written…'}</p>;
  const content = callInput(raw.record, str(item, 'tool_use_id'))?.content;
  if (typeof content !== 'string')
    return <p class="muted small">The record holds no content for this write.</p>;
  return <DiffView lines={trimContext(diffLines('', content), 0).slice(0, 400)} />;
}

export function PatchView({ patch }: { patch: string }) {
  return (
    <div class="diffs">
      {parsePatch(patch).map((f, i) => (
        <div key={i} class="patch-file">
          <div class="patch-path">
            <span class="type-badge">{f.action}</span> {f.path}
          </div>
          <DiffView lines={f.lines.map((l) => ({ ...l }))} />
        </div>
      ))}
    </div>
  );
}

function RawRecord({ item, where }: { item: Item; where: Where }) {
  const [open, setOpen] = useState(false);
  const raw = useRawRecord(where, item, open);
  return (
    <div class="raw">
      <button type="button" class="link small" onClick={() => setOpen(!open)}>
        {open ? 'hide the record' : 'show the record as written'}
      </button>
      {open &&
        (raw?.state === 'ready' ? (
          <TextBlock text={pretty(raw.line)} className="json" />
        ) : (
          <p class="muted small">{raw?.state === 'error' ? raw.message : 'reading…'}</p>
        ))}
    </div>
  );
}

function OrphanResult({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item } = row;
  const { out, err } = resultText(item);
  return (
    <Fold
      id={`${row.key}:body`}
      folds={ctx.folds}
      className="tool"
      label={
        <>
          <span class={`badge tool status-${row.failed ? 'err' : 'ok'}`}>{toolName(item)}</span>{' '}
          <span class="muted">result of a call outside this view</span>
        </>
      }
    >
      {() => (
        <>
          {out && <TextBlock text={out} className="output" />}
          {err && <TextBlock text={err} className="stderr" />}
        </>
      )}
    </Fold>
  );
}

export function LaneEdgeView({ row, ctx }: { row: LaneEdgeRow; ctx: RowContext }) {
  const depth = `depth-${Math.min(row.depth, 4)}`;
  if (row.kind === 'lane-start') {
    return (
      <div class={`row lane-edge lane-start ${depth}`} data-lane={row.lane}>
        <span class="badge sub">lane</span> subagent <code>{row.lane}</code>
        <span class="muted small">
          {row.status === 'loading'
            ? ' · reading…'
            : row.status === 'error'
              ? ` · could not read: ${row.error}`
              : ` · ${row.count} items`}
        </span>
      </div>
    );
  }
  return (
    <div class={`row lane-edge lane-end ${depth}`} data-lane={row.lane}>
      <span class="muted small">end of subagent {row.lane}</span>{' '}
      <button type="button" class="link small" onClick={() => ctx.toggleLane(row.lane, false)}>
        close lane
      </button>
    </div>
  );
}
