// A server on a free port with the agents' homes pointed where a test wants, and a WebSocket client
// that speaks the protocol.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ErrorResponse,
  PROTOCOL_VERSION,
  SessionRemovedFrame,
  SessionStreamFrame,
  SessionUpsertedFrame,
  type TranscriptItem,
  validate,
  WorkstationPresenceFrame,
} from '@cairn/protocol';
import { nodePlatform } from '@cairn/transcript';
import WebSocket from 'ws';
import { corpusPath } from '../../transcript/test/corpus.js';
import { homeEnv } from '../../transcript/test/homes.js';
import { codexLines } from '../../transcript/test/long-records.js';
import { type RunningServer, type ServerOptions, startServer } from '../src/index.js';
import { IndexDb } from '../src/indexing/index-db.js';
import { Catalog, sessionKey } from '../src/reader/catalog.js';

export const tempDir = (prefix = 'cairn-server-'): string => mkdtempSync(join(tmpdir(), prefix));

export { corpusEnv, homeEnv } from '../../transcript/test/homes.js';

/**
 * A home holding the corpus's Claude Code session `subagent.jsonl` cut to its first `prefix`
 * lines, with all its lines to append.
 */
export function claudeSessionHome(prefix: number): { home: string; file: string; lines: string[] } {
  const lines = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'subagent.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const home = tempDir();
  const dir = join(home, '.claude', 'projects', '-work-spotter');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'subagent.jsonl');
  writeFileSync(file, `${lines.slice(0, prefix).join('\n')}\n`);
  return { home, file, lines };
}

/**
 * A home holding one Codex rollout of `records` records after its session_meta, and a started
 * catalog of it that reads only when asked (no watcher).
 */
export async function rolloutCatalog(records: number) {
  const home = tempDir();
  const path = join(
    home,
    '.codex/sessions/2026/02/23/rollout-2026-02-23T12-00-00-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  );
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${codexLines(records + 1).join('\n')}\n`);
  const platform = nodePlatform({ env: homeEnv(home), homeDir: home });
  const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
  const catalog = new Catalog({ platform, db, watch: false });
  await catalog.start();
  await catalog.settled();
  return {
    path,
    platform,
    catalog,
    key: sessionKey('codex', path),
    close: () => {
      catalog.close();
      db.close();
    },
  };
}

export async function serve(
  env: Record<string, string>,
  options: Partial<ServerOptions> = {},
): Promise<RunningServer> {
  return startServer({
    env,
    homeDir: env.HOME,
    cairnHome: options.cairnHome ?? tempDir('cairn-state-'),
    checkReplies: true,
    waitForIndex: true,
    demo: false,
    rescanMs: 60_000,
    ...options,
  });
}

export type Frame = Record<string, unknown>;

/** An item as a client tells it from the others: its uuid, type and role. */
export const itemKey = (item: TranscriptItem): string =>
  `${item.uuid}|${item.type}|${(item as { role?: string }).role ?? ''}`;

/** The main lane's items a client holds: its latest history, then what live frames carried. */
export function itemsSeen(frames: Frame[]): TranscriptItem[] {
  let items: TranscriptItem[] = [];
  for (const f of frames) {
    if (f.type === 'transcript_ready_start') items = [];
    if (f.type === 'transcript_ready') items = [...(f.history as TranscriptItem[])];
    else if (f.type === 'transcript_chunk') items.push(...(f.messages as TranscriptItem[]));
    else if (f.item !== undefined && f.agent_id === undefined) items.push(f.item as TranscriptItem);
  }
  return items;
}

/**
 * A frame without what only later records can tell: a call's item learns its result's uuid when the
 * result is read, after the call went out (the result's own frame links back by parent_item), as a
 * subagent's brief learns the subagent's id; and a reply's token usage is what the lines read by then
 * say (a later line of the same request, after a tool's result, can raise it).
 */
export function sentAsKnown(f: Frame): Frame {
  if (f.type === 'token_usage') return { ...f, usage: undefined, contextWindowUsed: undefined };
  const item = f.item as Record<string, unknown> | undefined;
  if (item === undefined) return f;
  const { result_item: _, ...rest } = item;
  if (item.type === 'message:sub:out') delete rest.agent_id;
  return { ...f, item: rest };
}

/** The schema a frame that answers no pending request must match: a refusal that could not name its
 * request, the `sessions` topic's frames, else a session stream's. */
function frameSchema(frame: Frame) {
  if ('ok' in frame) return ErrorResponse;
  if (frame.type === 'session_upserted') return SessionUpsertedFrame;
  if (frame.type === 'session_removed') return SessionRemovedFrame;
  if (frame.type === 'workstation_presence') return WorkstationPresenceFrame;
  return SessionStreamFrame;
}

/** A protocol client over one WebSocket: requests by id, every other frame collected in order and
 * checked against the protocol; a frame that breaks it fails the test at the next wait or close. */
export class Client {
  readonly frames: Frame[] = [];
  readonly broken: { frame: Frame; error: string }[] = [];
  private readonly pending = new Map<string, (reply: Frame) => void>();
  private readonly waiters: (() => void)[] = [];
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      const id = frame.request_id;
      if (typeof id === 'string' && 'ok' in frame && this.pending.has(id)) {
        this.pending.get(id)!(frame);
        this.pending.delete(id);
      } else {
        this.frames.push(frame);
        const valid = validate(frameSchema(frame), frame);
        if (!valid.ok) this.broken.push({ frame, error: valid.error.message });
      }
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** Signs in with `opts.token` (a user's, on a server with people), else the daemon's own. */
  static async open(server: RunningServer, opts: { hello?: boolean; token?: string } = {}): Promise<Client> {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${opts.token ?? server.token}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const client = new Client(ws);
    if (opts.hello !== false) {
      const reply = await client.request('hello', { role: 'user', protocol_version: PROTOCOL_VERSION });
      if (reply.ok !== true) throw new Error(`hello refused: ${JSON.stringify(reply)}`);
    }
    return client;
  }

  /** Sends `{ request_id, op, ...args }` and resolves with the reply. */
  request(op: string, args: Record<string, unknown> = {}): Promise<Frame> {
    const request_id = `t-${this.nextId++}`;
    return this.send({ request_id, op, ...args });
  }

  send(message: Record<string, unknown>): Promise<Frame> {
    const id = message.request_id as string;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify(message));
    });
  }

  /** Waits until `test` holds for the frames received so far. */
  async until(test: (frames: Frame[]) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.frames)) {
      this.assertValid();
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `timed out; frames: ${JSON.stringify(this.frames.map((f) => f.type ?? f.ev)).slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Throws when a frame received so far broke the protocol. */
  assertValid(): void {
    const [first] = this.broken;
    if (first)
      throw new Error(
        `${this.broken.length} frame(s) break the protocol; first: ${first.error} in ${JSON.stringify(first.frame).slice(0, 600)}`,
      );
  }

  close(): Promise<void> {
    this.assertValid();
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
