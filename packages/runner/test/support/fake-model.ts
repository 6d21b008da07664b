// A model server for tests, on 127.0.0.1: it speaks the four wire formats the real agents use
// (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini generateContent), each
// streamed as server-sent events, and answers from a script instead of a model.
//
// A test queues turns; each turn is a list of steps (text, thinking, a tool call, usage) that the
// server renders in the dialect of whichever agent asks. The agent's main requests (the ones that
// offer tools) take the turns in order; its side requests (titles, routing, next-speaker checks)
// get a short canned answer and take nothing from the queue. Every request is recorded.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step =
  /** Text, streamed in `deltas` pieces (3 when absent), in order. */
  | { readonly kind: 'text'; readonly text: string; readonly deltas?: number }
  /** Reasoning the agent shows as thinking. */
  | { readonly kind: 'thinking'; readonly text: string }
  /**
   * A call of the agent's own file-writing tool (Claude's `Write`, codex's `apply_patch`,
   * gemini's `write_file`, opencode's `write`). `path` is absolute.
   */
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  /** Any tool, by the name and input the agent's dialect uses. */
  | { readonly kind: 'tool'; readonly name: string; readonly input: Record<string, unknown> }
  /** The token counts this turn reports (12 in, 7 out when absent). */
  | { readonly kind: 'usage'; readonly input: number; readonly output: number; readonly cached?: number };

export interface Turn {
  readonly steps: readonly Step[];
  /**
   * Never finish: after the steps (if any), the response stays open until the client goes away
   * or the server closes. With no steps not even the headers are sent.
   */
  readonly hang?: boolean;
  /** Milliseconds between streamed events, for this turn (the server's `paceMs` otherwise). */
  readonly paceMs?: number;
  /**
   * Holds the events that finish the answer until this settles: a test that acts while a turn runs
   * keeps it running for as long as it needs, however slow the machine.
   */
  readonly until?: Promise<unknown>;
  /**
   * Only a request whose JSON body contains this text (or that this test accepts) takes the
   * turn: a test names its own prompt here, so a late request of an earlier test (an agent's
   * background work) cannot take its turns. Unmatched main requests get the fallback.
   */
  readonly when?: string | ((request: { readonly body: unknown; readonly dialect: Dialect }) => boolean);
}

export type Dialect = 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';

export interface RecordedRequest {
  /** ms since the epoch, when the request's body had arrived. */
  readonly at: number;
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body; the raw text when it is not JSON; null when empty. */
  readonly body: unknown;
  /** null for a route the server does not know (answered 404). */
  readonly dialect: Dialect | null;
  /** A side request (no tools offered): answered from no turn. */
  readonly auxiliary: boolean;
  /** Which scripted turn answered it (0-based); null for side requests, unknown routes and defaults. */
  readonly turn: number | null;
}

/**
 * A usage or rate limit, answered as the provider answers it: 429 with its error body. `rate` is a
 * rate limit (OpenAI's `rate_limit_exceeded`), `quota` a spent quota (OpenAI's
 * `insufficient_quota`); Anthropic and Gemini have one body for both.
 */
export interface LimitAnswer {
  readonly kind: 'rate' | 'quota';
  /** Sent as `retry-after`, and named in the message the way each provider names it. */
  readonly retryAfterSeconds?: number;
  /** What the headers say instead, when a test wants the agents' own retries of the 429 short while
   * the message still names `retryAfterSeconds`. */
  readonly headerRetryAfterSeconds?: number;
}

/** Any other refusal: this status with this JSON body, as a provider answers a bad request. */
export interface FailureAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface FakeModelOptions {
  /** Milliseconds between streamed events; 0 when absent. */
  readonly paceMs?: number;
  /** What a main request gets when the queue is empty; a short text when absent. */
  readonly fallback?: Turn;
}

export interface FakeModel {
  /** `http://127.0.0.1:PORT`, without a trailing slash or a version. */
  readonly url: string;
  /** Queues turns for the agent's next main requests. */
  script(...turns: Turn[]): void;
  /** Drops the queued turns and the recorded requests. */
  reset(): void;
  /** Every request so far, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** The requests that took (or would have taken) a turn: main requests of a known dialect. */
  mainRequests(): RecordedRequest[];
  /** Turns queued and not yet taken. */
  pendingTurns(): number;
  /** Sets the pacing for turns without their own. */
  setPace(ms: number): void;
  /** From now on every generate request of `dialect` is refused with the limit; null lifts it. */
  limit(dialect: Dialect, answer: LimitAnswer | null): void;
  /** From now on every generate request of `dialect` is refused with this failure; null lifts it. */
  fail(dialect: Dialect, answer: FailureAnswer | null): void;
  /** Resolves with the first recorded request (past or future) that `match` accepts. */
  waitForRequest(match: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const DEFAULT_USAGE = { input: 12, output: 7, cached: 0 };

export async function startFakeModel(options: FakeModelOptions = {}): Promise<FakeModel> {
  const queue: Turn[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: { match: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];
  let taken = 0;
  let pace = options.paceMs ?? 0;
  const limits = new Map<Dialect, LimitAnswer>();
  const failures = new Map<Dialect, FailureAnswer>();
  const fallback: Turn = options.fallback ?? { steps: [{ kind: 'text', text: 'Done.' }] };

  const record = (r: RecordedRequest) => {
    requests.push(r);
    for (const w of [...waiters]) {
      if (w.match(r)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
  };

  const server = createServer((req, res) => {
    readBody(req).then(
      (text) => handle(req, res, text),
      () => res.destroy(),
    );
  });

  function handle(req: IncomingMessage, res: ServerResponse, text: string) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body = parseBody(text);
    const route = routeOf(req.method ?? 'GET', url.pathname, body);
    const base = {
      at: Date.now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      headers: req.headers,
      body,
    };
    if (route === null) {
      record({ ...base, dialect: null, auxiliary: false, turn: null });
      sendJson(res, 404, { error: { type: 'not_found', message: `no route ${req.method} ${url.pathname}` } });
      return;
    }
    if (route.kind === 'count-tokens') {
      record({ ...base, dialect: route.dialect, auxiliary: true, turn: null });
      sendJson(res, 200, route.dialect === 'gemini' ? { totalTokens: 12 } : { input_tokens: 12 });
      return;
    }
    const auxiliary = !offersTools(route.dialect, body);
    const failure = failures.get(route.dialect);
    if (failure !== undefined) {
      record({ ...base, dialect: route.dialect, auxiliary, turn: null });
      sendJson(res, failure.status, failure.body);
      return;
    }
    const limited = limits.get(route.dialect);
    if (limited !== undefined) {
      record({ ...base, dialect: route.dialect, auxiliary, turn: null });
      const { headers, body: refusal } = limitAnswer(route.dialect, limited);
      const text = JSON.stringify(refusal);
      res.writeHead(429, { 'content-type': 'application/json', ...headers });
      res.end(text);
      return;
    }
    let turn: Turn;
    let index: number | null = null;
    if (auxiliary) {
      turn = { steps: [{ kind: 'text', text: auxiliaryText(route.dialect), deltas: 1 }] };
    } else {
      const at = queue.findIndex((t) => matches(t, body, route.dialect, text));
      if (at >= 0) {
        turn = queue.splice(at, 1)[0]!;
        index = taken++;
      } else {
        turn = fallback;
      }
    }
    record({ ...base, dialect: route.dialect, auxiliary, turn: index });
    const stream = route.stream;
    const renderer = RENDERERS[route.dialect];
    const events = renderer(turn, body, stream);
    const delay = turn.paceMs ?? pace;
    if (turn.hang === true && turn.steps.length === 0) return; // Accepted, never answered.
    if (!stream) {
      const whole = events.json();
      if (turn.hang === true) return;
      sendJson(res, 200, whole);
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.flushHeaders();
    void (async () => {
      for (const chunk of events.sse()) {
        if (res.destroyed) return;
        // A hanging turn stops before the events that would finish the answer.
        if (chunk === FINISH) {
          if (turn.hang === true) return;
          if (turn.until) await turn.until.catch(() => {});
          continue;
        }
        res.write(chunk);
        if (delay > 0) await sleep(delay);
      }
      // Dialects with no finishing events of their own are held at their end.
      if (turn.until) await turn.until.catch(() => {});
      res.end(events.end ?? '');
    })();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    script: (...turns) => {
      queue.push(...turns);
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      taken = 0;
    },
    requests,
    mainRequests: () =>
      requests.filter((r) => r.dialect !== null && !r.auxiliary && r.path !== '' && !isCount(r)),
    pendingTurns: () => queue.length,
    setPace: (ms) => {
      pace = ms;
    },
    limit: (dialect, answer) => {
      if (answer === null) limits.delete(dialect);
      else limits.set(dialect, answer);
    },
    fail: (dialect, answer) => {
      if (answer === null) failures.delete(dialect);
      else failures.set(dialect, answer);
    },
    waitForRequest: (match, timeoutMs = 30_000) => {
      const seen = requests.find(match);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`no matching model request within ${timeoutMs} ms`));
          }
        }, timeoutMs).unref();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function matches(turn: Turn, body: unknown, dialect: Dialect, text: string): boolean {
  if (turn.when === undefined) return true;
  if (typeof turn.when === 'string')
    return text.includes(turn.when) || JSON.stringify(body).includes(turn.when);
  return turn.when({ body, dialect });
}

/** Whether a recorded request carries a tool's result back to the model, in its dialect. */
export function carriesToolResult(request: RecordedRequest): boolean {
  const text = JSON.stringify(request.body);
  switch (request.dialect) {
    case 'anthropic':
      return text.includes('"type":"tool_result"');
    case 'openai-responses':
      return /"type":"(custom_tool_call_output|function_call_output)"/.test(text);
    case 'openai-chat':
      return text.includes('"role":"tool"');
    case 'gemini':
      return text.includes('"functionResponse"');
    default:
      return false;
  }
}

const isCount = (r: RecordedRequest) => /countTokens|count_tokens/.test(r.path);

// ---------------------------------------------------------------------------------------------
// Routes

type Route =
  | { readonly kind: 'generate'; readonly dialect: Dialect; readonly stream: boolean }
  | { readonly kind: 'count-tokens'; readonly dialect: Dialect };

function routeOf(method: string, path: string, body: unknown): Route | null {
  if (method !== 'POST') return null;
  const streamFlag = isObject(body) && body.stream === true;
  if (/\/v1\/messages\/count_tokens$/.test(path)) return { kind: 'count-tokens', dialect: 'anthropic' };
  if (/\/v1\/messages$/.test(path)) return { kind: 'generate', dialect: 'anthropic', stream: streamFlag };
  if (/\/responses$/.test(path)) return { kind: 'generate', dialect: 'openai-responses', stream: streamFlag };
  if (/\/chat\/completions$/.test(path))
    return { kind: 'generate', dialect: 'openai-chat', stream: streamFlag };
  if (/:streamGenerateContent$/.test(path)) return { kind: 'generate', dialect: 'gemini', stream: true };
  if (/:generateContent$/.test(path)) return { kind: 'generate', dialect: 'gemini', stream: false };
  if (/:countTokens$/.test(path)) return { kind: 'count-tokens', dialect: 'gemini' };
  return null;
}

function offersTools(dialect: Dialect, body: unknown): boolean {
  if (!isObject(body)) return false;
  const tools = body.tools;
  if (dialect === 'gemini') {
    return Array.isArray(tools) && tools.some((t) => isObject(t) && Array.isArray(t.functionDeclarations));
  }
  return Array.isArray(tools) && tools.length > 0;
}

function auxiliaryText(dialect: Dialect): string {
  // Gemini's side requests (next speaker, model routing) want JSON; this one answers each of them.
  if (dialect === 'gemini')
    return JSON.stringify({
      reasoning: 'scripted',
      next_speaker: 'user',
      model_choice: 'flash',
      complexity_reasoning: 'scripted',
      complexity_score: 10,
    });
  return 'Scripted title';
}

// ---------------------------------------------------------------------------------------------
// Rendering a turn

/** Yielded by a renderer between the answer's content and the events that finish it. */
const FINISH = '\u0000finish';

interface Rendered {
  /** The SSE chunks, in order, with {@link FINISH} before the finishing ones. */
  sse(): Iterable<string>;
  /** Written when the stream ends (e.g. `data: [DONE]`). */
  readonly end?: string;
  /** The whole answer, for a request that did not ask for a stream. */
  json(): unknown;
}

type Renderer = (turn: Turn, body: unknown, stream: boolean) => Rendered;

function usageOf(turn: Turn) {
  const u = turn.steps.find((s) => s.kind === 'usage');
  return u?.kind === 'usage' ? { input: u.input, output: u.output, cached: u.cached ?? 0 } : DEFAULT_USAGE;
}

function pieces(text: string, n: number): string[] {
  if (n <= 1 || text.length <= 1) return [text];
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const sseEvent = (event: string | null, data: unknown) =>
  `${event === null ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

// Anthropic Messages ---------------------------------------------------------------------------

const anthropic: Renderer = (turn, body) => {
  const usage = usageOf(turn);
  const model = isObject(body) && typeof body.model === 'string' ? body.model : 'claude-scripted';
  const messageId = id('msg');
  const blocks: Record<string, unknown>[] = [];
  for (const step of turn.steps) {
    if (step.kind === 'text') blocks.push({ type: 'text', text: step.text, deltas: step.deltas ?? 3 });
    else if (step.kind === 'thinking') blocks.push({ type: 'thinking', thinking: step.text });
    else if (step.kind === 'write')
      blocks.push({
        type: 'tool_use',
        name: 'Write',
        input: { file_path: step.path, content: step.content },
      });
    else if (step.kind === 'tool') blocks.push({ type: 'tool_use', name: step.name, input: step.input });
  }
  for (const b of blocks) if (b.type === 'tool_use') b.id = id('toolu');
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const usageJson = {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_read_input_tokens: usage.cached,
    cache_creation_input_tokens: 0,
  };
  return {
    *sse() {
      yield sseEvent('message_start', {
        type: 'message_start',
        message: {
          id: messageId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usageJson, output_tokens: 1 },
        },
      });
      let index = 0;
      for (const b of blocks) {
        if (b.type === 'text') {
          yield sseEvent('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'text', text: '' },
          });
          for (const p of pieces(b.text as string, b.deltas as number)) {
            yield sseEvent('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'text_delta', text: p },
            });
          }
        } else if (b.type === 'thinking') {
          yield sseEvent('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          });
          for (const p of pieces(b.thinking as string, 2)) {
            yield sseEvent('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'thinking_delta', thinking: p },
            });
          }
          yield sseEvent('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: 'c2NyaXB0ZWQ=' },
          });
        } else {
          yield sseEvent('content_block_start', {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
          });
          const json = JSON.stringify(b.input);
          for (const p of pieces(json, 2)) {
            yield sseEvent('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json: p },
            });
          }
        }
        yield sseEvent('content_block_stop', { type: 'content_block_stop', index });
        index++;
      }
      yield FINISH;
      yield sseEvent('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: usage.output },
      });
      yield sseEvent('message_stop', { type: 'message_stop' });
    },
    json: () => ({
      id: messageId,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks.map((b) => {
        if (b.type === 'text') return { type: 'text', text: b.text };
        if (b.type === 'thinking')
          return { type: 'thinking', thinking: b.thinking, signature: 'c2NyaXB0ZWQ=' };
        return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
      }),
      stop_reason: stopReason,
      stop_sequence: null,
      usage: usageJson,
    }),
  };
};

// OpenAI Responses (codex) ---------------------------------------------------------------------

/** How codex is offered a file write: a freeform `apply_patch`, a function `apply_patch`, or a shell. */
function codexWrite(body: unknown, path: string, content: string): Record<string, unknown> {
  const patch = `*** Begin Patch\n*** Add File: ${path}\n${content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `+${l}`)
    .join('\n')}\n*** End Patch\n`;
  const tools = isObject(body) && Array.isArray(body.tools) ? (body.tools as unknown[]).filter(isObject) : [];
  const named = (name: string) => tools.find((t) => t.name === name);
  const applyPatch = named('apply_patch');
  if (applyPatch?.type === 'custom') return { type: 'custom_tool_call', name: 'apply_patch', input: patch };
  if (applyPatch !== undefined) {
    return { type: 'function_call', name: 'apply_patch', arguments: JSON.stringify({ input: patch }) };
  }
  const shell = named('shell_command') ?? named('exec_command');
  if (shell !== undefined) {
    const heredoc = `apply_patch <<'PATCH'\n${patch}PATCH`;
    return {
      type: 'function_call',
      name: shell.name,
      arguments: JSON.stringify(shell.name === 'exec_command' ? { cmd: heredoc } : { command: heredoc }),
    };
  }
  return {
    type: 'function_call',
    name: 'shell',
    arguments: JSON.stringify({ command: ['apply_patch', patch] }),
  };
}

const openaiResponses: Renderer = (turn, body) => {
  const usage = usageOf(turn);
  const responseId = id('resp');
  const model = isObject(body) && typeof body.model === 'string' ? body.model : 'gpt-scripted';
  const items: Record<string, unknown>[] = [];
  for (const step of turn.steps) {
    if (step.kind === 'text') items.push({ type: 'message', text: step.text, deltas: step.deltas ?? 3 });
    else if (step.kind === 'thinking') items.push({ type: 'reasoning', text: step.text });
    else if (step.kind === 'write') items.push(codexWrite(body, step.path, step.content));
    else if (step.kind === 'tool')
      items.push({ type: 'function_call', name: step.name, arguments: JSON.stringify(step.input) });
  }
  const finalItem = (item: Record<string, unknown>, itemId: string): Record<string, unknown> => {
    if (item.type === 'message') {
      return {
        type: 'message',
        id: itemId,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: item.text, annotations: [] }],
      };
    }
    if (item.type === 'reasoning') {
      return { type: 'reasoning', id: itemId, summary: [{ type: 'summary_text', text: item.text }] };
    }
    const { deltas: _d, ...rest } = item;
    return { ...rest, id: itemId, call_id: id('call'), status: 'completed' };
  };
  const usageJson = {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.output,
  };
  const response = (status: string, output: unknown[]) => ({
    id: responseId,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    usage: status === 'completed' ? usageJson : null,
  });
  const finals = items.map((item, i) => finalItem(item, id(item.type === 'message' ? 'msg' : 'item') + i));
  return {
    *sse() {
      yield sseEvent('response.created', { type: 'response.created', response: response('in_progress', []) });
      for (let i = 0; i < items.length; i++) {
        const item = items[i]!;
        const done = finals[i]!;
        const itemId = done.id as string;
        if (item.type === 'message') {
          yield sseEvent('response.output_item.added', {
            type: 'response.output_item.added',
            output_index: i,
            item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] },
          });
          yield sseEvent('response.content_part.added', {
            type: 'response.content_part.added',
            item_id: itemId,
            output_index: i,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          });
          for (const p of pieces(item.text as string, item.deltas as number)) {
            yield sseEvent('response.output_text.delta', {
              type: 'response.output_text.delta',
              item_id: itemId,
              output_index: i,
              content_index: 0,
              delta: p,
            });
          }
        } else if (item.type === 'reasoning') {
          yield sseEvent('response.output_item.added', {
            type: 'response.output_item.added',
            output_index: i,
            item: { type: 'reasoning', id: itemId, summary: [] },
          });
          yield sseEvent('response.reasoning_summary_part.added', {
            type: 'response.reasoning_summary_part.added',
            item_id: itemId,
            output_index: i,
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          });
          for (const p of pieces(item.text as string, 2)) {
            yield sseEvent('response.reasoning_summary_text.delta', {
              type: 'response.reasoning_summary_text.delta',
              item_id: itemId,
              output_index: i,
              summary_index: 0,
              delta: p,
            });
          }
        } else {
          yield sseEvent('response.output_item.added', {
            type: 'response.output_item.added',
            output_index: i,
            item: done,
          });
        }
        yield sseEvent('response.output_item.done', {
          type: 'response.output_item.done',
          output_index: i,
          item: done,
        });
      }
      yield FINISH;
      yield sseEvent('response.completed', {
        type: 'response.completed',
        response: response('completed', finals),
      });
    },
    json: () => response('completed', finals),
  };
};

// OpenAI Chat Completions (opencode) -----------------------------------------------------------

const openaiChat: Renderer = (turn, body) => {
  const usage = usageOf(turn);
  const chatId = id('chatcmpl');
  const model = isObject(body) && typeof body.model === 'string' ? body.model : 'gpt-scripted';
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: chatId,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const calls: { id: string; name: string; args: string }[] = [];
  for (const step of turn.steps) {
    if (step.kind === 'write') {
      calls.push({
        id: id('call'),
        name: 'write',
        args: JSON.stringify({ filePath: step.path, content: step.content }),
      });
    } else if (step.kind === 'tool') {
      calls.push({ id: id('call'), name: step.name, args: JSON.stringify(step.input) });
    }
  }
  const finish = calls.length > 0 ? 'tool_calls' : 'stop';
  const usageJson = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cached },
  };
  return {
    *sse() {
      yield sseEvent(null, chunk({ role: 'assistant', content: '' }));
      let callIndex = 0;
      for (const step of turn.steps) {
        if (step.kind === 'text') {
          for (const p of pieces(step.text, step.deltas ?? 3)) yield sseEvent(null, chunk({ content: p }));
        } else if (step.kind === 'thinking') {
          for (const p of pieces(step.text, 2)) yield sseEvent(null, chunk({ reasoning_content: p }));
        } else if (step.kind === 'write' || step.kind === 'tool') {
          const call = calls[callIndex]!;
          yield sseEvent(
            null,
            chunk({
              tool_calls: [
                {
                  index: callIndex,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            }),
          );
          for (const p of pieces(call.args, 2)) {
            yield sseEvent(null, chunk({ tool_calls: [{ index: callIndex, function: { arguments: p } }] }));
          }
          callIndex++;
        }
      }
      yield FINISH;
      yield sseEvent(null, chunk({}, finish));
      yield sseEvent(null, {
        id: chatId,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: usageJson,
      });
    },
    end: 'data: [DONE]\n\n',
    json: () => ({
      id: chatId,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.steps.map((s) => (s.kind === 'text' ? s.text : '')).join('') || null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.args },
                  })),
                }
              : {}),
          },
          finish_reason: finish,
        },
      ],
      usage: usageJson,
    }),
  };
};

// Gemini ---------------------------------------------------------------------------------------

const gemini: Renderer = (turn) => {
  const usage = usageOf(turn);
  const usageJson = {
    promptTokenCount: usage.input,
    candidatesTokenCount: usage.output,
    cachedContentTokenCount: usage.cached,
    totalTokenCount: usage.input + usage.output,
  };
  const parts: Record<string, unknown>[][] = [];
  for (const step of turn.steps) {
    if (step.kind === 'text') for (const p of pieces(step.text, step.deltas ?? 3)) parts.push([{ text: p }]);
    else if (step.kind === 'thinking') parts.push([{ text: step.text, thought: true }]);
    else if (step.kind === 'write') {
      parts.push([
        { functionCall: { name: 'write_file', args: { file_path: step.path, content: step.content } } },
      ]);
    } else if (step.kind === 'tool') parts.push([{ functionCall: { name: step.name, args: step.input } }]);
  }
  const candidate = (p: unknown[], last: boolean) => ({
    candidates: [
      { content: { role: 'model', parts: p }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
    ],
    ...(last ? { usageMetadata: usageJson } : {}),
    modelVersion: 'gemini-scripted',
  });
  return {
    *sse() {
      for (const p of parts) yield `data: ${JSON.stringify(candidate(p, false))}\r\n\r\n`;
      yield FINISH;
      yield `data: ${JSON.stringify(candidate([{ text: '' }], true))}\r\n\r\n`;
    },
    json: () => candidate(parts.length > 0 ? parts.flat() : [{ text: '' }], true),
  };
};

const RENDERERS: Record<Dialect, Renderer> = {
  anthropic,
  'openai-responses': openaiResponses,
  'openai-chat': openaiChat,
  gemini,
};

// ---------------------------------------------------------------------------------------------

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The 429 each provider sends for a limit: its headers and its error body. */
export function limitAnswer(
  dialect: Dialect,
  answer: LimitAnswer,
): { headers: Record<string, string>; body: unknown } {
  const wait = answer.retryAfterSeconds;
  const headerWait = answer.headerRetryAfterSeconds ?? wait;
  const headers: Record<string, string> =
    headerWait === undefined ? {} : { 'retry-after': String(headerWait) };
  switch (dialect) {
    case 'anthropic':
      return {
        headers: {
          ...headers,
          ...(headerWait === undefined
            ? {}
            : {
                'anthropic-ratelimit-requests-reset': new Date(Date.now() + headerWait * 1000).toISOString(),
              }),
        },
        body: {
          type: 'error',
          error: {
            type: 'rate_limit_error',
            message:
              answer.kind === 'quota'
                ? 'This request would exceed your organization’s usage limit.'
                : 'This request would exceed the rate limit for your organization of 50 requests per minute.',
          },
        },
      };
    case 'openai-responses':
    case 'openai-chat':
      return {
        headers,
        body: {
          error:
            answer.kind === 'quota'
              ? {
                  message: 'You exceeded your current quota, please check your plan and billing details.',
                  type: 'insufficient_quota',
                  param: null,
                  code: 'insufficient_quota',
                }
              : {
                  message: `Rate limit reached for requests. Please try again in ${wait ?? 20}s.`,
                  type: 'rate_limit_exceeded',
                  param: null,
                  code: 'rate_limit_exceeded',
                },
        },
      };
    case 'gemini':
      return {
        headers,
        body: {
          error: {
            code: 429,
            message: `Resource has been exhausted (e.g. check quota).${wait === undefined ? '' : ` Please retry in ${wait}s.`}`,
            status: 'RESOURCE_EXHAUSTED',
          },
        },
      };
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown) {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
