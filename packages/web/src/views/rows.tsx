// One timeline row per item: prompts, assistant text, thinking, tool calls with their results and the
// hooks that ran around them, subagent spawns with their lanes, hooks, compactions and everything else
// the agent recorded.
import { imageNote, recordedResult } from '@cairn/transcript/items';
import type { JSX } from 'preact';
import { memo } from 'preact/compat';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatClock, formatDateTime, formatDuration, formatExact } from '../format.js';
import { Code } from '../highlight/code.js';
import { languageOfPath } from '../highlight/lang.js';
import { highlightedFragment, useHighlighter } from '../highlight/load.js';
import { sessionHref } from '../route.js';
import { Caveat, SlashCommand } from '../sessions/commands.js';
import { compactionHow } from '../timeline/compaction.js';
import { diffLines, parsePatch, trimContext } from '../timeline/diff.js';
import { promptImageNotes, promptImagesIn, resultImagesIn, resultParts } from '../timeline/images.js';
import {
  editPairs,
  field,
  firstLine,
  type Item,
  isCompactionBoundary,
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
import { markerVerb } from '../timeline/link-markers.js';
import type { ItemRow, LaneEdgeRow, LinkMarkerRow } from '../timeline/model.js';
import {
  bodyInRecord,
  editCounts,
  failureReason,
  isSelfContainedSearch,
  itemBody,
  pathOf,
  type ResultBody,
  recordBody,
  searchQueries,
} from '../timeline/results.js';
import { Fold, type FoldState, Markdown, TextBlock } from './fold.js';
import { RecordImages } from './images.js';
import { ItemStar } from './marks.js';
import { callInput, pretty, useRawRecord, type Where } from './raw.js';
import { structuredBody, structuredResultSummary, structuredSummary, ToolName } from './structured-tools.js';

export interface RowContext {
  readonly agent: string;
  readonly sid: string;
  readonly folds: FoldState;
  /** Bumps when any fold opens or closes, so memoized rows redraw. */
  readonly foldVersion: number;
  hrefOf(row: ItemRow): string;
  toggleLane(agentId: string, open: boolean): void;
  /** Starts a fork holding the history up to and including this prompt; absent where none can start. */
  forkFrom?: ((item: Item) => void) | undefined;
  /** The rows are a preview the history is about to replace: shown without links or stars. */
  readonly preview?: boolean;
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
          {ctx.preview ? null : (
            <>
              <Permalink href={ctx.hrefOf(row)} />
              <ItemStar agent={ctx.agent} sid={ctx.sid} row={row} href={ctx.hrefOf(row)} />
            </>
          )}
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
        {() => <Markdown text={text} className="thinking-text" />}
      </Fold>
    );
  }
  if (t === 'message:sub:out') return <Spawn row={row} ctx={ctx} />;
  if (t === 'system:compact') return <Compaction row={row} ctx={ctx} />;
  if (t.startsWith('hook:')) return <Hook row={row} ctx={ctx} />;
  if (t.startsWith('tool:'))
    return isResult(item) ? <OrphanResult row={row} ctx={ctx} /> : <ToolCall row={row} ctx={ctx} />;
  if (t === 'notice:slash') return <SlashCommand row={row} ctx={ctx} />;
  if (t === 'system:caveat') return <Caveat />;
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

/** Opens the fork panel for a prompt of the session's own lane; shown with the row's other hover actions. */
function ForkButton({ item, forkFrom }: { item: Item; forkFrom: (item: Item) => void }) {
  return (
    <button
      type="button"
      class="copy fork-here"
      title="start a new session with the history up to and including this prompt"
      onClick={() => forkFrom(item)}
    >
      fork from here
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
  const images = promptImageNotes(row.item);
  return (
    <div class="prompt">
      <div class="who">
        {row.depth === 0 ? 'You' : 'Brief'} <CopyButton text={text} />
        {ctx.forkFrom && row.depth === 0 && !row.lane && (
          <ForkButton item={row.item} forkFrom={ctx.forkFrom} />
        )}
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
      {images.length > 0 && (
        <RecordImages
          where={{ agent: ctx.agent, sid: ctx.sid, lane: row.lane }}
          item={row.item}
          notes={images}
          pick={promptImagesIn}
          label="prompt image"
        />
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
        {row.hooks.length > 0 && <HooksBadge row={row} ctx={ctx} />}
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
      {row.hooks.length > 0 && ctx.folds.isOpen(hooksKey(row)) && <HookList hooks={row.hooks} />}
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

/** A compaction: one divider, with the summary the agent continued from folded under it as Markdown. */
function Compaction({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item, result } = row;
  const boundary = isCompactionBoundary(item) ? item : undefined;
  const summary = boundary ? result : item;
  const how = boundary ? compactionHow(str(boundary, 'text') ?? '') : undefined;
  const text = summary ? (str(summary, 'text') ?? '') : '';
  return (
    <div class="compaction">
      <div class="divider">
        <span>Context compacted{how ? ` · ${how}` : ''}</span>
      </div>
      {summary && text !== '' && (
        <Fold
          id={`${row.key}:body`}
          folds={ctx.folds}
          label={<span class="muted">summary that replaced the context</span>}
        >
          {() => <Markdown text={text} className="compaction-summary" />}
        </Fold>
      )}
    </div>
  );
}

/** What a hook run reported: its outcome, exit code and time, or only that it ran. */
function hookOutcome(item: Item): string {
  const exit = num(item, 'exit_code');
  const duration = num(item, 'duration_ms');
  const outcome = str(item, 'status') === 'started' ? 'ran' : (str(item, 'outcome') ?? '');
  return `${outcome}${exit !== undefined ? ` · exit ${exit}` : ''}${duration !== undefined ? ` · ${formatDuration(duration)}` : ''}`;
}

/** The hook's event (PreToolUse, Stop …), which its type names whether or not an outcome was recorded. */
const hookEvent = (item: Item): string => item.type.slice('hook:'.length);

function HookOutput({ item }: { item: Item }) {
  const content = str(item, 'content');
  const stderr = str(item, 'stderr');
  return (
    <>
      {str(item, 'command') && <TextBlock text={`$ ${str(item, 'command')}`} className="cmd" />}
      {content && <TextBlock text={content} />}
      {stderr && <TextBlock text={stderr} className="stderr" />}
    </>
  );
}

function Hook({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item } = row;
  const label = (
    <>
      <span class="badge hook">hook</span>{' '}
      <span class="hook-name">{str(item, 'hook_name') ?? hookEvent(item)}</span>{' '}
      <span class="muted small">{hookOutcome(item)}</span>
    </>
  );
  if (!str(item, 'content') && !str(item, 'stderr') && !str(item, 'command'))
    return <div class="hook-line">{label}</div>;
  return (
    <Fold id={`${row.key}:body`} folds={ctx.folds} className="hook-line" label={label}>
      {() => <HookOutput item={item} />}
    </Fold>
  );
}

/** The hooks that ran around a call, one line each: event, name, command, outcome, and any output. */
function HookList({ hooks }: { hooks: readonly Item[] }) {
  return (
    <ul class="hook-list" aria-label="hooks that ran for this call">
      {hooks.map((h, i) => (
        <li key={i} class="hook-run">
          <div class="hook-run-head">
            <span class="type-badge">{hookEvent(h)}</span>{' '}
            <span class="hook-name">{str(h, 'hook_name') ?? hookEvent(h)}</span>{' '}
            <span class="muted small">{hookOutcome(h)}</span>
          </div>
          {str(h, 'command') && <code class="hook-command">{str(h, 'command')}</code>}
          {str(h, 'content') && <TextBlock text={str(h, 'content')!} />}
          {str(h, 'stderr') && <TextBlock text={str(h, 'stderr')!} className="stderr" />}
        </li>
      ))}
    </ul>
  );
}

/** A call's one-line summary, by tool. */
function callSummary(item: Item): string {
  const structured = structuredSummary(item);
  if (structured !== undefined) return structured;
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
      return `${str(item, 'file_path') ?? ''}${num(item, 'lines') !== undefined ? ` · ${formatExact(num(item, 'lines')!)} lines` : ''}`;
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
  const queries = searchQueries(item);
  if (queries.length > 0) return queries.join(' · ');
  if (input) {
    const path = pathOf(item);
    if (path !== undefined) return path;
    return firstLine(JSON.stringify(input), 160);
  }
  return '';
}

const lines = (n: number): string => `${formatExact(n)} line${n === 1 ? '' : 's'}`;

/** What a result says in one line: how much it found or changed (a failure's reason is shown apart). */
function resultSummary(item: Item, result: Item | undefined): string {
  const name = toolName(item);
  const edit = name === 'Edit' || name === 'MultiEdit' || name === 'replace' ? editCounts(item) : undefined;
  if (!result) {
    if (isSelfContainedSearch(item)) return 'searched';
    return edit
      ? `−${formatExact(edit.removed)} +${formatExact(edit.added)} lines · no result yet`
      : 'no result yet';
  }
  const structured = structuredResultSummary(item, result);
  if (structured !== undefined) return structured;
  if (isErrorResult(result)) return 'failed';
  if (edit) return `−${formatExact(edit.removed)} +${formatExact(edit.added)} lines`;
  if (name === 'Read' && num(result, 'lines') !== undefined) return lines(num(result, 'lines')!);
  if ((name === 'Grep' || name === 'Glob') && num(result, 'matches') !== undefined) {
    const n = num(result, 'matches')!;
    return `${formatExact(n)} match${n === 1 ? '' : 'es'}`;
  }
  if (field(result, 'interrupted') === true) return 'interrupted';
  const out = isShellTool(name)
    ? (str(result, 'stdout') ?? textOf(obj(result, 'result')?.output))
    : undefined;
  if (out !== undefined) {
    const n = out === '' ? 0 : out.replace(/\n$/, '').split('\n').length;
    return n === 0 ? 'no output' : `${lines(n)} of output`;
  }
  return '';
}

/** Output text of a shell result, or of an orphan result of any shape. */
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
  const error = str(result, 'error');
  if (error !== undefined) return { err: error };
  // What the one-line summary already says (ok, counts, ids) is not repeated as a block.
  const own = ownFields(result);
  for (const k of ['ok', 'is_error', 'interrupted', 'lines', 'bytes', 'matches', 'status', 'agent_id'])
    delete own[k];
  return Object.keys(own).length > 0 ? { out: json(own) } : {};
}

const hooksKey = (row: ItemRow): string => `${row.key}:hooks`;

/** How many hooks ran for a call; opens the list of them. */
function HooksBadge({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const open = ctx.folds.isOpen(hooksKey(row));
  return (
    <button
      type="button"
      class={`hooks-badge ${open ? 'on' : ''}`}
      aria-expanded={open}
      title="the hooks that ran for this call"
      onClick={() => ctx.folds.toggle(hooksKey(row))}
    >
      {row.hooks.length} hook{row.hooks.length === 1 ? '' : 's'}
    </button>
  );
}

function ToolCall({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item, result } = row;
  const name = toolName(item) ?? item.type;
  const status = result ? (row.failed ? 'err' : 'ok') : isSelfContainedSearch(item) ? 'ok' : 'pending';
  const summary = resultSummary(item, result);
  const reason = row.failed ? failureReason(item, result) : undefined;
  const description = str(item, 'description');
  const hooksOpen = row.hooks.length > 0 && ctx.folds.isOpen(hooksKey(row));
  const label = (
    <>
      <span class={`badge tool status-${status}`}>
        <ToolName name={name} />
      </span>{' '}
      <span class={isShellTool(name) ? 'call-line mono' : 'call-line'}>{callSummary(item)}</span>
      {summary && !reason && <span class="muted small result-summary"> · {summary}</span>}
      {description && isShellTool(name) && <span class="muted small"> · {description}</span>}
      {reason && (
        <span class="fail-reason">
          <span class="fail-word">failed:</span> {reason}
        </span>
      )}
    </>
  );
  const hooksBadge = row.hooks.length > 0 ? <HooksBadge row={row} ctx={ctx} /> : undefined;
  return (
    <Fold
      id={`${row.key}:body`}
      folds={ctx.folds}
      className="tool"
      label={label}
      aside={hooksBadge}
      under={hooksOpen ? <HookList hooks={row.hooks} /> : undefined}
    >
      {() => (
        <ToolBody row={row} where={{ agent: ctx.agent, sid: ctx.sid, lane: row.lane }} folds={ctx.folds} />
      )}
    </Fold>
  );
}

function ToolBody({ row, where, folds }: { row: ItemRow; where: Where; folds?: FoldState }) {
  const { item, result } = row;
  const name = toolName(item) ?? '';
  const input = obj(item, 'input');
  const parts: JSX.Element[] = [];
  // A plan, questions, an MCP call's JSON: drawn in their own form, with the record still at hand.
  const structured = structuredBody(item, result, row.key, folds, where);
  if (structured && (name === 'ExitPlanMode' || name === 'AskUserQuestion')) {
    parts.push(<div key="structured">{structured}</div>);
    parts.push(<RawRecord key="raw" item={item} where={where} />);
    return <>{parts}</>;
  }
  // A failure leads with its reason, in full.
  if (result && row.failed) {
    const { out, err } = resultText(result);
    const text = err ?? out;
    if (text) parts.push(<TextBlock key="why" text={text} className="stderr failure" />);
  }
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
  } else if (searchQueries(item).length > 0 && input) {
    parts.push(
      <ul key="queries" class="queries">
        {searchQueries(item).map((q, i) => (
          <li key={i}>
            <span class="muted small">searched for</span> {q}
          </li>
        ))}
      </ul>,
    );
  } else if (input) {
    parts.push(<InputFields key="input" input={input} path={pathOf(item)} />);
  }
  if (result && !row.failed) {
    if (isShellTool(name)) {
      const { out, err } = resultText(result);
      if (out) parts.push(<TextBlock key="out" text={out} className="output" />);
      if (err) parts.push(<TextBlock key="err" text={err} className="stderr" />);
    } else if (structured) {
      parts.push(<div key="out">{structured}</div>);
    } else if (bodyInRecord(item, result)) {
      parts.push(<RecordedBody key="out" call={item} result={result} where={where} />);
    } else if (name !== 'Edit' && name !== 'Write') {
      const body = itemBody(item, result);
      if (body) parts.push(<ResultBodyView key="out" body={body} />);
      const images = resultParts(result).images;
      if (images.length > 0)
        parts.push(
          <RecordImages
            key="images"
            where={where}
            item={result}
            notes={images}
            pick={(record) => resultImagesIn(record, str(result, 'tool_use_id'))}
            label="result image"
          />,
        );
    }
  } else if (!result && isSelfContainedSearch(item)) {
    parts.push(
      <p key="none" class="muted small">
        Codex records that it searched, not what it found.
      </p>,
    );
  }
  parts.push(<RawRecord key="raw" item={item} where={where} />);
  return <>{parts}</>;
}

/** A call's input as named fields: short values inline, long or multi-line text as a block, code as
 * code when the call names the file it belongs to. */
function InputFields({ input, path }: { input: Record<string, unknown>; path: string | undefined }) {
  const language = languageOfPath(path);
  return (
    <dl class="fields">
      {/* Short values first, so a path or a flag is not buried under a file's content. */}
      {Object.entries(input)
        .sort(([, a], [, b]) => Number(isLong(a)) - Number(isLong(b)))
        .map(([name, value]) => (
          <FieldRow
            key={name}
            name={name}
            value={value}
            language={name === 'content' ? language : undefined}
          />
        ))}
    </dl>
  );
}

const isLong = (v: unknown): boolean => typeof v === 'string' && (v.includes('\n') || v.length > 160);

function FieldRow({
  name,
  value,
  language,
}: {
  name: string;
  value: unknown;
  language?: string | undefined;
}) {
  let shown: JSX.Element;
  if (typeof value === 'string' && isLong(value)) {
    shown =
      language !== undefined ? (
        <Code text={value} language={language} firstLine={1} />
      ) : (
        <TextBlock text={value} />
      );
  } else if (typeof value === 'string') {
    shown = <span class="field-text">{value}</span>;
  } else if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    shown = <span class="field-text mono">{String(value)}</span>;
  } else {
    shown = <TextBlock text={json(value)} className="json" />;
  }
  return (
    <div class="named-field">
      <dt>{name}</dt>
      <dd>{shown}</dd>
    </div>
  );
}

function ResultBodyView({ body }: { body: ResultBody }) {
  switch (body.kind) {
    case 'code':
      return <Code text={body.text} language={body.language} firstLine={body.firstLine} className="output" />;
    case 'markdown':
      return <Markdown text={body.text} className="fetched" />;
    case 'text':
      return <TextBlock text={body.text} className="output" />;
    case 'files':
      return (
        <div class="output">
          {body.paths.length === 0 ? (
            <p class="muted small">no files</p>
          ) : (
            <ul class="file-list">
              {body.paths.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
          {body.more && <p class="muted small">{body.more}</p>}
        </div>
      );
    case 'links':
      return (
        <div class="output">
          <ul class="link-list">
            {body.links.map((l, i) => (
              <li key={i}>
                <a href={safeUrl(l.url)} target="_blank" rel="noopener noreferrer">
                  {l.title}
                </a>{' '}
                <span class="muted small">{l.url}</span>
              </li>
            ))}
          </ul>
          {body.text && <Markdown text={body.text} />}
        </div>
      );
    case 'fields':
      return (
        <dl class="fields output">
          {body.fields.map((f) => (
            <FieldRow key={f.name} name={f.name} value={f.value} />
          ))}
        </dl>
      );
  }
}

/** Only web addresses become links; anything else stays text in the title. */
const safeUrl = (url: string): string | undefined => (/^https?:\/\//i.test(url) ? url : undefined);

/** A result whose body is only in the agent's file: read from its record when the call is opened. */
function RecordedBody({ call, result, where }: { call: Item; result: Item; where: Where }) {
  const raw = useRawRecord(where, result, true);
  if (raw?.state === 'error') return <p class="muted small">Could not read the result: {raw.message}</p>;
  if (raw?.state !== 'ready') return <p class="muted small">reading the result…</p>;
  const recorded = recordedResult(raw.record, str(result, 'tool_use_id'));
  const body = recorded ? recordBody(call, recorded) : undefined;
  // A Read of a picture answers with the picture itself.
  const images = resultImagesIn(raw.record, str(result, 'tool_use_id'));
  if (images.length > 0)
    return (
      <RecordImages
        where={where}
        item={result}
        notes={images.map(imageNote)}
        pick={(record) => resultImagesIn(record, str(result, 'tool_use_id'))}
        label="result image"
      />
    );
  if (!body) return <p class="muted small">The record holds no output for this call.</p>;
  return <ResultBodyView body={body} />;
}

export function DiffView({
  lines,
  language,
}: {
  lines: ReturnType<typeof trimContext>;
  /** Colours each line as code of this language, once the highlighter is in. */
  language?: string | undefined;
}) {
  const ref = useRef<HTMLPreElement>(null);
  const highlight = useHighlighter(language !== undefined);
  useLayoutEffect(() => {
    if (!highlight || language === undefined || !ref.current) return;
    for (const el of ref.current.querySelectorAll<HTMLElement>('.dl:not(.skip) .tx')) {
      if (el.classList.contains('hljs')) continue;
      const html = highlight(el.textContent ?? '', language);
      if (html === undefined) continue;
      el.replaceChildren(highlightedFragment(html));
      el.classList.add('hljs');
    }
  }, [highlight, language, lines]);
  return (
    <pre class="diff" ref={ref}>
      {lines.map((l, i) => (
        <div
          key={i}
          class={`dl ${l.op === '+' ? 'add' : l.op === '-' ? 'del' : l.op === '…' ? 'skip' : 'ctx'}`}
        >
          <span class="op" aria-hidden="true">
            {l.op === '…' ? ' ' : l.op}
          </span>
          <span class="tx">{l.text}</span>
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
  const language = languageOfPath(pathOf(item));
  return (
    <div class="diffs">
      {pairs.map((p, i) => (
        <DiffView key={i} lines={trimContext(diffLines(p.old, p.new))} language={language} />
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
  return <Code text={content} language={languageOfPath(pathOf(item))} firstLine={1} className="written" />;
}

export function PatchView({ patch }: { patch: string }) {
  return (
    <div class="diffs">
      {parsePatch(patch).map((f, i) => (
        <div key={i} class="patch-file">
          <div class="patch-path">
            <span class="type-badge">{f.action}</span> {f.path}
          </div>
          <DiffView
            lines={f.lines.map((l) => ({ ...l }))}
            language={languageOfPath(f.path.split(' → ').at(-1))}
          />
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
              : ` · ${formatExact(row.count)} items`}
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

const shortSid = (sid: string): string => (sid.length > 13 ? `${sid.slice(0, 8)}…` : sid);

/** How long a session's title may run in a marker before it is cut. */
const MARKER_TITLE_CHARS = 60;

/** Where the work went on after this point: a divider whose words link to the other session, named
 * by its title when the directory knows it, else by its short id. The title is transcript text,
 * drawn as text with its invisible characters made visible, like every other. */
export function LinkMarkerView({ row }: { row: LinkMarkerRow }) {
  const { directory } = useServices();
  useChanges(directory);
  const { link } = row;
  const verb = markerVerb(link);
  const other = link.to;
  const head = directory.get(other.agent, other.sid);
  const named = head?.title ?? head?.first_prompt;
  const title = named === undefined || named.trim() === '' ? undefined : shownText(named.trim());
  return (
    <div
      class="row link-marker depth-0"
      data-kind={link.kind}
      data-sid={other.sid}
      data-at-item={link.at_item}
    >
      <div class="content">
        <div class="divider">
          <span>
            <a href={sessionHref(other.agent, other.sid)} title={`${other.agent} session ${other.sid}`}>
              {verb} {other.agent}{' '}
              {title === undefined ? (
                <>
                  session <code>{shortSid(other.sid)}</code>
                </>
              ) : (
                <q>
                  {title.length > MARKER_TITLE_CHARS ? `${title.slice(0, MARKER_TITLE_CHARS - 1)}…` : title}
                </q>
              )}
            </a>{' '}
            here
          </span>
        </div>
      </div>
    </div>
  );
}
