// `session_handoff_preview`: the hand-off document a session's chosen items make, measured before
// anything is sent. cairn's extension: the web UI shows the size and the secrets that will be
// redacted, then starts the new chat with the same arguments (`POST /api/sessions/handoff`).
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName } from '../identifiers.js';
import { ItemTypeCounts } from '../item-types.js';
import { SessionDumpWriteArgs } from './dump.js';
import { SessionLinkKind } from './session-links.js';

const { format: _format, redact: _redact, ...selection } = SessionDumpWriteArgs.properties;

export const SessionHandoffPreviewArgs = Type.Object(
  {
    /** The source session and which of its items, as `session_dump_write` selects them. */
    ...selection,
    /** The agent the document is for, named in its opening line. */
    to: Type.Optional(AgentName),
    /** `handoff` (the default) carries the work on; `fork` goes on from the last item given. */
    kind: Type.Optional(SessionLinkKind),
    /** What the receiving agent is asked to do; a default asks it to carry on. */
    prompt: Type.Optional(Type.String({ maxLength: 20_000 })),
    /** `false` leaves secrets in; by default each one is replaced by a marker naming its kind. */
    redact: Type.Optional(Type.Boolean()),
    /** cairn: ids of secrets `findings` listed to leave in clear; every other one is redacted. */
    keep: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 10_000 })),
  },
  { $id: 'SessionHandoffPreviewArgs', additionalProperties: false },
);
export type SessionHandoffPreviewArgs = Static<typeof SessionHandoffPreviewArgs>;

/** cairn: one secret the redactor found, shown for review and never in clear. */
export const RedactionFinding = Type.Object(
  {
    /** Stable while the daemon runs: the kind, a keyed hash of the secret, which occurrence. */
    id: Type.String({ minLength: 1 }),
    kind: Type.String(),
    /** A few characters at each end at most, never the whole secret. */
    masked: Type.String(),
    /** The item it is in; absent when it is in the title. */
    item: Type.Optional(Type.String()),
    item_type: Type.Optional(Type.String()),
    /** Left in clear, as `keep` asked. */
    kept: Type.Boolean(),
  },
  { $id: 'RedactionFinding', additionalProperties: false },
);
export type RedactionFinding = Static<typeof RedactionFinding>;

export const SessionHandoffPreviewResult = Type.Object(
  {
    items: Type.Integer({ minimum: 0 }),
    /** Items chosen, by type. */
    entries: ItemTypeCounts,
    /** The document's size in UTF-8. */
    bytes: Type.Integer({ minimum: 0 }),
    /** An estimate: a token per `bytes_per_token` bytes. */
    tokens: Type.Integer({ minimum: 0 }),
    bytes_per_token: Type.Integer({ minimum: 1 }),
    /** The largest document one prompt carries; a bigger one is refused when sent. */
    max_bytes: Type.Integer({ minimum: 1 }),
    /** Secrets replaced, per kind; absent when `redact` was false. */
    redacted: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
    /** cairn: every secret found, kept or not, in document order; absent when `redact` was false. */
    findings: Type.Optional(Type.Array(RedactionFinding)),
    /** The source's project folder, where the new session runs unless another is given. */
    cwd: Type.Optional(Type.String()),
    /** The last item given, which the link names. */
    last_item: Type.Optional(Type.String()),
  },
  { $id: 'SessionHandoffPreviewResult' },
);
export type SessionHandoffPreviewResult = Static<typeof SessionHandoffPreviewResult>;

export const SessionHandoffPreviewRequest = request(
  'session_handoff_preview',
  SessionHandoffPreviewArgs,
  'SessionHandoffPreviewRequest',
);
export type SessionHandoffPreviewRequest = Static<typeof SessionHandoffPreviewRequest>;
export const SessionHandoffPreviewResponse = response(
  'session_handoff_preview',
  SessionHandoffPreviewResult,
  'SessionHandoffPreviewResponse',
);
export type SessionHandoffPreviewResponse = Static<typeof SessionHandoffPreviewResponse>;
