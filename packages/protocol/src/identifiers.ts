// The small values every other schema is built from.
import { type Static, Type } from '@sinclair/typebox';

/** A session id as its agent spells it: a uuid for Claude Code, Codex and Gemini CLI, other shapes
 * elsewhere (`ses_…`, `20260211_001`). Held to characters that cannot step out of a folder or split a
 * topic name, since servers join it into paths and `session:<agent>:<sid>`. */
export const Sid = Type.String({ $id: 'Sid', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$' });
export type Sid = Static<typeof Sid>;

/** Which agent wrote a session, by the transcript library's adapter id (`claude-code`, `codex`,
 * `gemini-cli`, …). */
export const AgentName = Type.String({ $id: 'AgentName', pattern: '^[a-z][a-z0-9-]{0,63}$' });
export type AgentName = Static<typeof AgentName>;

/** A subagent below a session, as the session's own files name it (`a471372f2`, a thread id). It
 * picks a file, so it is held to the same safe characters as a sid. */
export const AgentId = Type.String({ $id: 'AgentId', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$' });
export type AgentId = Static<typeof AgentId>;

/** An instance id: random, fixed-width hexadecimal, issued by a server for itself once and kept. */
export const InstanceId = Type.String({ $id: 'InstanceId', pattern: '^[0-9a-f]{32}$' });
export type InstanceId = Static<typeof InstanceId>;

/** Milliseconds since the Unix epoch. Fields naming an instant end in `_at`; durations end in `_ms`. */
export const Timestamp = Type.Integer({ $id: 'Timestamp', minimum: 0 });
export type Timestamp = Static<typeof Timestamp>;

/** Pairs a reply with its request; unique among one connection's requests in flight. */
export const RequestId = Type.String({ $id: 'RequestId', minLength: 1, maxLength: 128 });
export type RequestId = Static<typeof RequestId>;

/** An opaque position a paged read resumes at. Only the server that issued it reads it. */
export const Cursor = Type.String({ $id: 'Cursor', minLength: 1, maxLength: 1024 });
export type Cursor = Static<typeof Cursor>;

/** Who a connection speaks as, settled once by `hello`: a person (`user`, the web UI and the CLI), an
 * agent session speaking for itself (`session`), or another server (`instance`). The op table's
 * `roles` are checked against it. */
export const Role = Type.Union([Type.Literal('session'), Type.Literal('user'), Type.Literal('instance')], {
  $id: 'Role',
});
export type Role = Static<typeof Role>;

export const ROLES = ['session', 'user', 'instance'] as const satisfies readonly Role[];
