// The names transcript items are typed with, and the selection elements written over them.
import { type Static, Type } from '@sinclair/typebox';

/** A `:`-separated type name read from the left, so a prefix names everything below it: `tool` is
 * every tool, `message:user` both directions. Segments after the first keep the spelling of whoever
 * coined them (`tool:Bash`, `tool:exec_command`, `hook:PreToolUse`), which is why they are not held
 * to lowercase. */
export const TranscriptItemType = Type.String({
  $id: 'TranscriptItemType',
  pattern: '^[a-z]+(?::[A-Za-z0-9_.-]+)*$',
});
export type TranscriptItemType = Static<typeof TranscriptItemType>;

/** Every fully spelled type name. The three open families below are left out on purpose: their last
 * segment is coined by an agent, a tool or a hook, so a name missing here is a newcomer, not an error. */
export const TRANSCRIPT_ITEM_TYPES = [
  'message:user:in',
  'message:user:out',
  'message:sub:in',
  'message:sub:out',
  'message:session:in',
  'message:session:out',
  'thinking',
  'notice:slash',
  'notice:interrupt',
  'system:compact',
  'system:api-error',
  'system:task',
  'system:caveat',
  'system:resume',
  'system:unknown',
] as const;
export type KnownTranscriptItemType = (typeof TRANSCRIPT_ITEM_TYPES)[number];

/** The open families, by the prefix their members share. */
export const OPEN_ITEM_FAMILIES = ['tool', 'system:attachment', 'hook'] as const;
export type OpenItemFamily = (typeof OPEN_ITEM_FAMILIES)[number];

/** One segment as coined by someone else: a tool name, an attachment kind, a hook event. */
export const OPEN_SEGMENT = '[A-Za-z0-9_.-]+';

/** One element of a selection: a type name or a prefix of one, either negated with `-`, or `@name`
 * standing for a preset expanded in place. Elements apply left to right, so an exclusion reaches what
 * a prefix or a preset before it brought in. */
export const TranscriptItemSelector = Type.String({
  $id: 'TranscriptItemSelector',
  pattern: '^-?(?:@[A-Za-z0-9][A-Za-z0-9_-]*|[a-z]+(?::[A-Za-z0-9_.-]+)*)$',
});
export type TranscriptItemSelector = Static<typeof TranscriptItemSelector>;

/** What a preset may be called: any non-empty name. Only those written like `@name` can be referenced
 * from a selection; any can be asked for as a dump's `preset`. */
export const DumpPresetName = Type.String({ $id: 'DumpPresetName', minLength: 1 });
export type DumpPresetName = Static<typeof DumpPresetName>;

/** How many items of each type, keyed by type name. Keys written as type names hold counts; the record
 * is open beyond them, as the contract's is, so a reply from a newer writer still reads. */
export const ItemTypeCounts = Type.Record(TranscriptItemType, Type.Integer({ minimum: 0 }), {
  $id: 'ItemTypeCounts',
});
export type ItemTypeCounts = Static<typeof ItemTypeCounts>;
