// What a dump writes and what it is asked by: the ids ledger, the dump file, and named presets.
import { type Static, Type } from '@sinclair/typebox';
import { AgentName, Sid, Timestamp } from './identifiers.js';
import { DumpPresetName, TranscriptItemSelector } from './item-types.js';
import { TranscriptItem } from './items.js';

/** What kind of thing an id names. Ids are gathered beside the items rather than made item types, or
 * the same agent would appear once as an item and again as an id. */
export const DumpIdKind = Type.Union(
  [
    Type.Literal('agent'),
    Type.Literal('task'),
    Type.Literal('tool_use'),
    Type.Literal('msg'),
    Type.Literal('sid'),
    Type.Literal('cron'),
  ],
  { $id: 'DumpIdKind' },
);
export type DumpIdKind = Static<typeof DumpIdKind>;

export const DumpIdEntry = Type.Object(
  {
    kind: DumpIdKind,
    id: Type.String({ minLength: 1 }),
    /** What the id was called where it appeared: an agent's name, a monitor's description, a peer's
     * working directory. */
    label: Type.Optional(Type.String()),
    /** Where it stood when the dump was written, for ids that end (agents, tasks). */
    status: Type.Optional(Type.String()),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: 'DumpIdEntry' },
);
export type DumpIdEntry = Static<typeof DumpIdEntry>;

/** The ids the dumped items carried, each once. Relative to the subject: a subagent's ledger lists
 * the agents it started and not itself, and dumping one of them is the same request with its id. */
export const DumpIds = Type.Array(DumpIdEntry, { $id: 'DumpIds' });
export type DumpIds = Static<typeof DumpIds>;

/** The file a dump is written to. A reply names its path instead of carrying the items, so the file
 * has to say on its own what it is a dump of and what was left out. */
export const SessionDumpFile = Type.Object(
  {
    sid: Sid,
    /** The subagent the dump is of; absent when it is of the session itself. */
    agent_id: Type.Optional(Type.String()),
    /** cairn: which agent wrote the session, since sids of different agents may look alike. */
    agent: Type.Optional(AgentName),
    written_at: Timestamp,
    /** The selection as applied: presets expanded in place, exclusions kept where they stood. */
    types: Type.Array(TranscriptItemSelector),
    /** cairn: the range as asked for, inclusive; absent bounds were open. */
    since_at: Type.Optional(Timestamp),
    until_at: Type.Optional(Timestamp),
    since_uuid: Type.Optional(Type.String()),
    until_uuid: Type.Optional(Type.String()),
    /** Oldest first, as the transcript had them. */
    items: Type.Array(TranscriptItem),
    ids: DumpIds,
  },
  { $id: 'SessionDumpFile' },
);
export type SessionDumpFile = Static<typeof SessionDumpFile>;

/** A selection someone named so it can be asked for by name: an interest ("how the work was done",
 * "what to hand over") made of type names, kept in the server's config rather than in the wire. */
export const DumpPreset = Type.Object(
  {
    name: DumpPresetName,
    description: Type.Optional(Type.String()),
    opts: Type.Object({ types: Type.Array(TranscriptItemSelector) }),
  },
  { $id: 'DumpPreset' },
);
export type DumpPreset = Static<typeof DumpPreset>;

/** How a dump file is written. `md` renders the same selected items as a document; it never changes
 * which items are kept. */
export const DumpFormat = Type.Union([Type.Literal('json'), Type.Literal('md')], { $id: 'DumpFormat' });
export type DumpFormat = Static<typeof DumpFormat>;
