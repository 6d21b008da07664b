// The whole contract as one JSON Schema document, for clients in other languages: every named schema
// under `$defs` with its `$id`, referenced by that id wherever it is used, plus the op table, the topic
// table, the error codes and the item vocabulary.
import type { TSchema } from '@sinclair/typebox';
import {
  CHAT_HTTP_BODIES,
  ChatSessionSummary,
  CLIENT_MESSAGE_MEMBERS,
  ClientMessage,
  DetectedDevServer,
  DriveEventFrame,
  InProgressTurnSnapshot,
  ReplayableTurnEvent,
  SERVER_EVENT_MEMBERS,
  ServerEvent,
  WireSessionDetail,
  WireSessionMemoryDetails,
  WireSessionMemoryStatus,
  WireSessionSummary,
} from './chat/index.js';
import { SessionDumpFile } from './dump.js';
import { ErrorResponse, PROTOCOL_VERSION } from './envelope.js';
import { CONNECTION_ERROR_CODES, ERROR_CODES } from './errors.js';
import { OPEN_ITEM_FAMILIES, TRANSCRIPT_ITEM_TYPES } from './item-types.js';
import { TRANSCRIPT_ITEM_MEMBERS, TranscriptItem } from './items.js';
import { OP_ATTRIBUTES, OP_NAMES, OP_SCHEMAS } from './op-table.js';
import { SESSION_STREAM_FRAME_MEMBERS, SessionStreamFrame } from './session-stream.js';
import { SNIPPET_MARK_END, SNIPPET_MARK_START } from './snippet.js';
import {
  SyncAckFrame,
  SyncClientFrame,
  SyncDocsFrame,
  SyncPutFrame,
  SyncRefusedFrame,
  SyncRemoveFrame,
  SyncStateFrame,
} from './sync.js';
import { TYPED_TOOLS } from './tool-items.js';
import {
  SessionRemovedFrame,
  SessionUpsertedFrame,
  TOPIC_ATTRIBUTES,
  WorkstationPresenceFrame,
} from './topics.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/** Schemas named at the top of the document even when nothing else refers to them. */
const ROOTS: readonly TSchema[] = [
  ErrorResponse,
  TranscriptItem,
  ...TRANSCRIPT_ITEM_MEMBERS.map((member) => member.schema),
  SessionDumpFile,
  SessionUpsertedFrame,
  SessionRemovedFrame,
  WorkstationPresenceFrame,
  SessionStreamFrame,
  ...SESSION_STREAM_FRAME_MEMBERS,
  ...OP_NAMES.flatMap((op) => Object.values(OP_SCHEMAS[op])),
  ServerEvent,
  ...SERVER_EVENT_MEMBERS,
  ReplayableTurnEvent,
  InProgressTurnSnapshot,
  ClientMessage,
  ...CLIENT_MESSAGE_MEMBERS,
  WireSessionDetail,
  WireSessionMemoryStatus,
  WireSessionMemoryDetails,
  DetectedDevServer,
  WireSessionSummary,
  ChatSessionSummary,
  ...CHAT_HTTP_BODIES,
  DriveEventFrame,
  SyncStateFrame,
  SyncClientFrame,
  SyncDocsFrame,
  SyncPutFrame,
  SyncRemoveFrame,
  SyncAckFrame,
  SyncRefusedFrame,
];

/** Collects named schemas, turning every nested schema that has an `$id` into a reference to it. */
class Bundler {
  readonly defs = new Map<string, Json>();
  private readonly written = new Map<string, string>();

  define(schema: TSchema): string {
    const id = schema.$id;
    if (typeof id !== 'string') throw new Error('a root schema of the export has no $id');
    // Symbol-keyed TypeBox markers do not survive JSON, so two copies of one schema (one wrapped in
    // Optional) compare equal, while two different schemas under one id do not.
    const text = JSON.stringify(schema);
    const prior = this.written.get(id);
    if (prior !== undefined) {
      if (prior !== text) throw new Error(`two different schemas share the $id ${id}`);
      return id;
    }
    this.written.set(id, text);
    this.defs.set(id, null);
    this.defs.set(id, this.convert(schema, true));
    return id;
  }

  private convert(node: unknown, isRoot: boolean): Json {
    if (Array.isArray(node)) return node.map((each) => this.convert(each, false));
    if (node === null || typeof node !== 'object') return node as Json;
    const record = node as Record<string, unknown>;
    if (!isRoot && typeof record.$id === 'string') return { $ref: this.define(record as TSchema) };
    const out: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(record)) out[key] = this.convert(value, false);
    return out;
  }
}

/** The contract as a JSON Schema 2020-12 document. Pure: the same value on every call. */
export function contractJsonSchema(): { [key: string]: Json } {
  const bundler = new Bundler();
  for (const schema of ROOTS) bundler.define(schema);
  const ref = (schema: TSchema): Json => ({ $ref: bundler.define(schema) });

  const ops: { [op: string]: Json } = {};
  for (const op of OP_NAMES) {
    const schemas = OP_SCHEMAS[op];
    ops[op] = {
      ...(structuredClone(OP_ATTRIBUTES[op]) as unknown as { [key: string]: Json }),
      args: ref(schemas.args),
      result: ref(schemas.result),
      request: ref(schemas.request),
      response: ref(schemas.response),
    };
  }

  const defs: { [id: string]: Json } = {};
  for (const id of [...bundler.defs.keys()].sort()) defs[id] = bundler.defs.get(id) ?? null;

  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'cairn protocol',
    description:
      'Requests are `{request_id, op, ...args}`, successful replies `{ok: true, request_id, ...result}`, failed ' +
      'replies ErrorResponse. `ops` says who may call what; `$defs` holds every named schema under its $id.',
    protocol_version: PROTOCOL_VERSION,
    $defs: defs,
    ops,
    topics: structuredClone(TOPIC_ATTRIBUTES) as unknown as Json,
    error_codes: { all: [...ERROR_CODES], connection: [...CONNECTION_ERROR_CODES] },
    item_types: {
      closed: [...TRANSCRIPT_ITEM_TYPES],
      open_families: [...OPEN_ITEM_FAMILIES],
      typed_tools: [...TYPED_TOOLS],
    },
    snippet_marks: { start: SNIPPET_MARK_START, end: SNIPPET_MARK_END },
  };
}
