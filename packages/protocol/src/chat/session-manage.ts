// cairn's: a person keeps their chat list in order. Rename, archive and delete act on cairn's own
// records of a chat; the agent's session files are never touched.
import { type Static, Type } from '@sinclair/typebox';
import { Id } from './fields.js';

/** `POST /api/sessions/rename`: the title cairn shows from now on, instead of the agent's. */
export const ChatSessionRenameRequest = Type.Object(
  { sessionId: Id, title: Type.String({ minLength: 1, maxLength: 200 }) },
  { $id: 'ChatSessionRenameRequest' },
);
export type ChatSessionRenameRequest = Static<typeof ChatSessionRenameRequest>;

/** `POST /api/sessions/archive`: hidden from the default list (`archived: true`), or back in it. */
export const ChatSessionArchiveRequest = Type.Object(
  { sessionId: Id, archived: Type.Boolean() },
  { $id: 'ChatSessionArchiveRequest' },
);
export type ChatSessionArchiveRequest = Static<typeof ChatSessionArchiveRequest>;

/** `POST /api/sessions/delete`: cairn forgets the chat and its messages. Refused while a turn runs. */
export const ChatSessionDeleteRequest = Type.Object({ sessionId: Id }, { $id: 'ChatSessionDeleteRequest' });
export type ChatSessionDeleteRequest = Static<typeof ChatSessionDeleteRequest>;

export const ChatSessionDeleteResponse = Type.Object({ deleted: Id }, { $id: 'ChatSessionDeleteResponse' });
export type ChatSessionDeleteResponse = Static<typeof ChatSessionDeleteResponse>;
