// Where the page's main thread spent a Chromium performance trace: each event's own time (its
// duration less the events nested in it) put in the categories the browser's performance panel
// uses (scripting, style, layout, paint, garbage collection), and the longest tasks with what
// filled each. Read by the reader bench after a traced scroll, and by reader-trace.mjs.
import { SourceMap } from 'node:module';

/** The trace categories that hold the main thread's tasks, the script's samples and the page's marks. */
export const TRACED = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
];

/** A task this long or longer holds up a frame a person notices (the web's own measure). */
const LONG_TASK_MS = 50;

/** The page's main thread: the renderer's that made the page's own marks (a navigation may have
 * moved the page to another renderer since the trace began); in a trace begun after them, the
 * renderer's main thread that ran the most tasks. */
export function mainThread(events) {
  const mark = events.find((e) => e.name === 'cairn:session-open');
  const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const marked = mains.find((m) => mark && m.pid === mark.pid && m.tid === mark.tid);
  if (marked || mains.length < 2) return marked ?? mains[0];
  const busy = new Map();
  for (const e of events)
    if (e.name === 'RunTask' && e.ph === 'X')
      busy.set(`${e.pid}:${e.tid}`, (busy.get(`${e.pid}:${e.tid}`) ?? 0) + e.dur);
  return mains.reduce((best, m) =>
    (busy.get(`${m.pid}:${m.tid}`) ?? 0) > (busy.get(`${best.pid}:${best.tid}`) ?? 0) ? m : best,
  );
}

const STYLE = new Set([
  'UpdateLayoutTree',
  'RecalculateStyles',
  'ScheduleStyleRecalculation',
  'ParseAuthorStyleSheet',
]);
const LAYOUT = new Set([
  'Layout',
  'UpdateLayerTree',
  'HitTest',
  'IntersectionObserverController::computeIntersections',
]);
const PAINT = new Set([
  'PrePaint',
  'Paint',
  'PaintImage',
  'Layerize',
  'Commit',
  'CompositeLayers',
  'RasterTask',
  'Decode Image',
  'UpdateLayer',
]);
const SCRIPT = new Set([
  'FunctionCall',
  'EvaluateScript',
  'v8.compile',
  'v8.compileModule',
  'v8.evaluateModule',
  'V8.Execute',
  'v8.callFunction',
  'v8.run',
  'TimerFire',
  'EventDispatch',
  'FireAnimationFrame',
  'FireIdleCallback',
  'RunMicrotasks',
  'ResizeObserver::deliverObservations',
  'ParseHTML',
]);

/** The sampled stacks' nodes, by id: the call frame of each. */
function profileNodes(events) {
  const nodes = new Map();
  for (const e of events)
    if (e.name === 'ProfileChunk')
      for (const n of e.args?.data?.cpuProfile?.nodes ?? []) nodes.set(n.id, n.callFrame);
  return nodes;
}

/**
 * The script's own time by function, from the sampled stacks: each sample's leaf function, named
 * with its file, line and column; with `maps` (a script's address → its source map), by the source
 * file and line it was built from, since the bundle's names and places say nothing. Only the
 * samples taken at or after `from` (a trace timestamp) count.
 */
export function sampledFunctions(events, maps = new Map(), from = Number.NEGATIVE_INFINITY) {
  const nodes = profileNodes(events);
  const decoded = new Map([...maps].map(([url, json]) => [url, new SourceMap(json)]));
  const nameOf = (f) => {
    const entry = decoded.get(f.url)?.findEntry(f.lineNumber, f.columnNumber);
    if (entry?.originalSource === undefined)
      return `${f.functionName || '(anonymous)'} ${f.url?.split('/').pop() ?? ''}:${f.lineNumber}:${f.columnNumber}`;
    // `../../src/session/window.ts` → `session/window.ts`; a package's file keeps its package's name.
    const source = entry.originalSource.replace(/^(\.\.\/)+(src\/)?/, '').replace(/^.*node_modules\//, '');
    return `${entry.name ?? f.functionName ?? '(anonymous)'} ${source}:${entry.originalLine + 1}`;
  };
  // Each profile's clock: its start, then each sample's delta from the one before.
  const clocks = new Map();
  for (const e of events) if (e.name === 'Profile') clocks.set(e.id, e.args?.data?.startTime ?? 0);
  const selfMs = new Map();
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const deltas = e.args?.data?.timeDeltas ?? [];
    (e.args?.data?.cpuProfile?.samples ?? []).forEach((id, i) => {
      const at = (clocks.get(e.id) ?? 0) + (deltas[i] ?? 0);
      clocks.set(e.id, at);
      const f = nodes.get(id);
      if (!f || at < from) return;
      const key = nameOf(f);
      selfMs.set(key, (selfMs.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
    });
  }
  return selfMs;
}

/**
 * The source maps of the scripts the trace sampled, read through the page (as its own scripts were):
 * a script's address → its map; a script without one is left out.
 */
export async function sourceMapsOf(page, events) {
  const urls = new Set(
    [...profileNodes(events).values()].map((f) => f.url).filter((u) => /^https?:/.test(u ?? '')),
  );
  const maps = new Map();
  for (const url of urls) {
    const json = await page.evaluate(async (u) => {
      const reply = await fetch(`${u}.map`);
      return reply.ok ? reply.json() : undefined;
    }, url);
    if (json) maps.set(url, json);
  }
  return maps;
}

/** Samples that are no function of the page's: the thread idle, or the engine's own bookkeeping. */
const NOT_SCRIPT = /^\((idle|program|root)\) /;

const PROFILER_START = 'V8.InvokeApiInterruptCallbacks';

/** The panel's category of an event, by its name. */
function categoryOf(name) {
  // The sampling profiler starts in an interrupt of the page's thread, listing every function
  // compiled so far: the trace's own cost, a long task in its first tenth of a second.
  if (name === PROFILER_START) return 'the profiler starting (the trace itself)';
  if (/GC|GarbageCollect/.test(name)) return 'garbage collection';
  if (SCRIPT.has(name)) return 'scripting';
  if (STYLE.has(name)) return 'style';
  if (LAYOUT.has(name)) return 'layout';
  if (PAINT.has(name)) return 'paint';
  return 'other';
}

/**
 * The main thread's time in the trace (`maps`: the source maps of its scripts; `since`: the name of
 * the page's mark it is counted from, when not from the trace's start), by category and by event, from each event's own time; and
 * its tasks of 50 ms or more, longest first, each with the event that took most of it.
 * @returns {{ busyMs: number, spanMs: number, byCategory: Map<string, number>, byEvent: Map<string, number>,
 *   longTasks: { ms: number, top: string, topMs: number }[], functions: Map<string, number> }} functions:
 *   the script's own time by function, sampled
 */
export function traceCosts(events, maps = new Map(), since = undefined) {
  const main = mainThread(events);
  const from = events.find((e) => since !== undefined && e.name === since)?.ts ?? Number.NEGATIVE_INFINITY;
  const onMain = events
    .filter(
      (e) =>
        main &&
        e.pid === main.pid &&
        e.tid === main.tid &&
        e.ph === 'X' &&
        e.dur !== undefined &&
        e.ts >= from,
    )
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const byCategory = new Map();
  const byEvent = new Map();
  const longTasks = [];
  let busyMs = 0;
  // Nesting by a stack of open events: each event's own time is what its children leave.
  const stack = [];
  /** The task open now, and its events' own times by name. */
  let task;
  const close = (e) => {
    const own = Math.max(0, e.dur - e.childDur) / 1000;
    byCategory.set(categoryOf(e.name), (byCategory.get(categoryOf(e.name)) ?? 0) + own);
    byEvent.set(e.name, (byEvent.get(e.name) ?? 0) + own);
    if (task && e !== task.event) task.own.set(e.name, (task.own.get(e.name) ?? 0) + own);
    if (task && e === task.event) {
      const ms = e.dur / 1000;
      if (ms >= LONG_TASK_MS) {
        const [top, topMs] = [...task.own].sort((a, b) => b[1] - a[1])[0] ?? ['(its own)', 0];
        longTasks.push({ ms, top, topMs });
      }
      task = undefined;
    }
  };
  for (const raw of onMain) {
    const e = { name: raw.name, ts: raw.ts, dur: raw.dur, childDur: 0 };
    while (stack.length > 0 && stack.at(-1).ts + stack.at(-1).dur <= e.ts) close(stack.pop());
    const parent = stack.at(-1);
    if (parent) parent.childDur += e.dur;
    else if (e.name === 'RunTask') {
      busyMs += e.dur / 1000;
      task = { event: e, own: new Map() };
    }
    stack.push(e);
  }
  while (stack.length > 0) close(stack.pop());
  const first = onMain[0];
  const last = onMain.reduce((end, e) => Math.max(end, e.ts + e.dur), first?.ts ?? 0);
  longTasks.sort((a, b) => b.ms - a.ms);
  const functions = new Map(
    [...sampledFunctions(events, maps, from)].filter(([name]) => !NOT_SCRIPT.test(name)),
  );
  return { busyMs, spanMs: first ? (last - first.ts) / 1000 : 0, byCategory, byEvent, longTasks, functions };
}

/** The costs as a few lines for a bench's output, each beginning with `indent`. */
export function traceCostLines(costs, indent = '      ') {
  const ms = (x) => `${x.toFixed(0)} ms`;
  const top = (m, n) =>
    [...m]
      .filter(([, v]) => v >= 0.5)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n);
  const longest = costs.longTasks.slice(0, 5);
  return [
    `${indent}main thread busy ${ms(costs.busyMs)} of ${ms(costs.spanMs)}: ${top(costs.byCategory, 6)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}`,
    `${indent}top events (own time): ${top(costs.byEvent, 6)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}`,
    `${indent}script by function (sampled): ${top(costs.functions, 5)
      .map(([k, v]) => `${k} ${ms(v)}`)
      .join(', ')}`,
    `${indent}${costs.longTasks.length} tasks of ${LONG_TASK_MS} ms or more${
      longest.length > 0
        ? `; longest ${longest.map((t) => `${ms(t.ms)} (${t.top === PROFILER_START ? 'the profiler starting' : t.top} ${ms(t.topMs)})`).join(', ')}`
        : ''
    }`,
  ];
}
