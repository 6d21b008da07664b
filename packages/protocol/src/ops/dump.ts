// `session_dump_write` and `dump_presets_read`.
import { type Static, Type } from '@sinclair/typebox';
import { DumpFormat, DumpIds, DumpPreset } from '../dump.js';
import { request, response } from '../envelope.js';
import { AgentName, InstanceId, Sid, Timestamp } from '../identifiers.js';
import { ItemTypeCounts, TranscriptItemSelector } from '../item-types.js';

/** Writes a dump of a session, or of one subagent below it, to a file under the server's own data
 * folder and answers with its path. The whole session is classified and the range cut after, so a
 * result inside the range still links to a call made before it.
 *
 * The arguments are open, as the contract has them: a field this server does not know is ignored.
 * Values that merely name nothing here (a subagent, a record or a preset this session or server does
 * not have) pass the schema and are answered `not_found` naming the field. */
export const SessionDumpWriteArgs = Type.Object(
  {
    sid: Sid,
    /** cairn: which agent's session, when two agents' sessions could share the id. */
    agent: Type.Optional(AgentName),
    /** Dump this subagent instead of the session. Every type is then read from its side: its brief is
     * `message:user:in`, its answer `message:user:out`, so the same presets work one level down. */
    agent_id: Type.Optional(Type.String()),
    /** Inclusive lower bound in time. */
    since_at: Type.Optional(Timestamp),
    /** Inclusive lower bound at a record, cutting at its position rather than its clock. Give one lower
     * bound, not both. */
    since_uuid: Type.Optional(Type.String()),
    until_at: Type.Optional(Timestamp),
    until_uuid: Type.Optional(Type.String()),
    /** Which item types to keep, applied left to right over the whole range, after the preset's.
     * Absent (and no preset) keeps everything but attachments. */
    types: Type.Optional(Type.Array(TranscriptItemSelector)),
    /** A configured preset used as the ground `types` then applies over. A name the server does not
     * have is refused (`not_found`), never ignored: a dump wider than asked for is what a selection
     * prevents. */
    preset: Type.Optional(Type.String({ minLength: 1 })),
    /** Same as appending `-thinking`. */
    no_thinking: Type.Optional(Type.Boolean()),
    /** Same as appending `-message:sub` and `-tool:Agent`. */
    no_agent: Type.Optional(Type.Boolean()),
    /** cairn: write the Markdown rendering instead of the JSON file; the items kept are the same. */
    format: Type.Optional(DumpFormat),
    /** cairn: `false` writes secrets as the session holds them. By default each one found is
     * replaced by a marker naming its kind, and `redacted` in the reply counts them. */
    redact: Type.Optional(Type.Boolean()),
  },
  { $id: 'SessionDumpWriteArgs' },
);
export type SessionDumpWriteArgs = Static<typeof SessionDumpWriteArgs>;

export const SessionDumpWriteResult = Type.Object(
  {
    /** Absolute, on the writing server's host. */
    path: Type.String(),
    instance: InstanceId,
    /** Items written per type name, so a dump that matched almost nothing is told apart from one that
     * kept what was asked. */
    entries: ItemTypeCounts,
    /** The ids those items carried, so the next dump (of an agent named here) can be asked for without
     * opening the file. */
    ids: DumpIds,
    bytes: Type.Integer({ minimum: 0 }),
    /** cairn: the secrets replaced by markers, per kind (`GitHub token`, `password`, …); empty when
     * none were found, absent when the dump was written with `redact: false`. */
    redacted: Type.Optional(Type.Record(Type.String(), Type.Integer({ minimum: 1 }))),
  },
  { $id: 'SessionDumpWriteResult' },
);
export type SessionDumpWriteResult = Static<typeof SessionDumpWriteResult>;

export const SessionDumpWriteRequest = request(
  'session_dump_write',
  SessionDumpWriteArgs,
  'SessionDumpWriteRequest',
);
export type SessionDumpWriteRequest = Static<typeof SessionDumpWriteRequest>;
export const SessionDumpWriteResponse = response(
  'session_dump_write',
  SessionDumpWriteResult,
  'SessionDumpWriteResponse',
);
export type SessionDumpWriteResponse = Static<typeof SessionDumpWriteResponse>;

/** Lists the presets the server is configured with, so a client offers names instead of a free-text
 * field. A preset naming another is answered as written: expanding, and refusing cycles and unknown
 * names, happen where the config is read. */
export const DumpPresetsReadArgs = Type.Object({}, { $id: 'DumpPresetsReadArgs' });
export type DumpPresetsReadArgs = Static<typeof DumpPresetsReadArgs>;

export const DumpPresetsReadResult = Type.Object(
  {
    /** In configured order: the server's config first, as written there, then the built-ins it
     * did not replace. */
    presets: Type.Array(DumpPreset),
  },
  { $id: 'DumpPresetsReadResult' },
);
export type DumpPresetsReadResult = Static<typeof DumpPresetsReadResult>;

export const DumpPresetsReadRequest = request(
  'dump_presets_read',
  DumpPresetsReadArgs,
  'DumpPresetsReadRequest',
);
export type DumpPresetsReadRequest = Static<typeof DumpPresetsReadRequest>;
export const DumpPresetsReadResponse = response(
  'dump_presets_read',
  DumpPresetsReadResult,
  'DumpPresetsReadResponse',
);
export type DumpPresetsReadResponse = Static<typeof DumpPresetsReadResponse>;
