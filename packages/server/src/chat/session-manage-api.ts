// `/api/sessions/rename|archive|delete`: the person keeps their chat list in order. All three act
// on cairn's own records only; the agent's session files are never opened, let alone changed.
import {
  ChatSessionArchiveRequest,
  ChatSessionDeleteRequest,
  ChatSessionRenameRequest,
  validate,
} from '@cairn/protocol';
import type { Static, TSchema } from '@sinclair/typebox';
import type { ChatSession } from './chat-session.js';
import type { ChatSessionRow, ChatStore } from './chat-store.js';

export interface SessionManageContext {
  readonly store: ChatStore;
  /** The chat's runtime when one is up; none is started for these requests. */
  running(id: string): ChatSession | undefined;
  /** Ends the runtime of a deleted chat and closes its tabs. */
  forget(id: string): void;
  /** The row as the list shows it. */
  summary(row: ChatSessionRow & { messageCount: number }): unknown;
}

export type Answer = { status: number; body: unknown };

/** The answer to one of the three, or undefined when the path is none of them. */
export function sessionManageApi(
  ctx: SessionManageContext,
  path: string,
  body: Record<string, unknown>,
): Answer | undefined {
  switch (path) {
    case '/api/sessions/rename': {
      const request = checked(ChatSessionRenameRequest, body, 'rename');
      if ('status' in request) return request;
      const title = request.title.trim().replace(/\s+/g, ' ');
      if (title === '') return { status: 400, body: { error: 'title: must not be blank' } };
      const row = ctx.store.session(request.sessionId);
      if (!row) return missing(request.sessionId);
      ctx.store.renameByPerson(row.id, title);
      ctx.running(row.id)?.renamedByPerson(title);
      return withSummary(ctx, row.id);
    }
    case '/api/sessions/archive': {
      const request = checked(ChatSessionArchiveRequest, body, 'archive');
      if ('status' in request) return request;
      if (!ctx.store.session(request.sessionId)) return missing(request.sessionId);
      ctx.store.archive(request.sessionId, request.archived);
      return withSummary(ctx, request.sessionId);
    }
    case '/api/sessions/delete': {
      const request = checked(ChatSessionDeleteRequest, body, 'delete');
      if ('status' in request) return request;
      if (!ctx.store.session(request.sessionId)) return missing(request.sessionId);
      // Deleting under a running turn would lose its reply half-kept: the person stops it first.
      if (ctx.running(request.sessionId)?.busy)
        return {
          status: 409,
          body: { error: 'a turn is running in this chat: stop it first, then delete the chat' },
        };
      ctx.forget(request.sessionId);
      ctx.store.deleteSession(request.sessionId);
      return { status: 200, body: { deleted: request.sessionId } };
    }
    default:
      return undefined;
  }
}

function checked<T extends TSchema>(
  schema: T,
  body: Record<string, unknown>,
  what: string,
): Static<T> | Answer {
  const result = validate(schema, body);
  return result.ok
    ? result.value
    : { status: 400, body: { error: `the ${what} request is invalid: ${result.error.message}` } };
}

function missing(id: string): Answer {
  return { status: 404, body: { error: `no chat session ${id}` } };
}

function withSummary(ctx: SessionManageContext, id: string): Answer {
  const row = ctx.store.session(id);
  if (!row) return missing(id);
  return {
    status: 200,
    body: { session: ctx.summary({ ...row, messageCount: ctx.store.messages(id).length }) },
  };
}
