// `session_handoff_preview`: the hand-off document's size and the secrets it would carry redacted,
// each listed masked with an id the send can name to keep it, before anything is sent. The document
// itself stays here; the chat builds it again when sent.
import { AGENT_FRAME_MAX_BYTES } from '@cairn/protocol';
import { BYTES_PER_TOKEN } from '@cairn/transcript';
import { handoffDocument } from '../reader/handoff-document.js';
import { done, fail, type OpHandler, sessionOf } from './context.js';

/** The prompt travels in one agent-wire frame, where JSON escaping can near double its size. */
export const HANDOFF_MAX_BYTES = AGENT_FRAME_MAX_BYTES / 2;

export const sessionHandoffPreview: OpHandler<'session_handoff_preview'> = async (req, ctx) => {
  const found = await sessionOf(ctx, req.sid, req.agent);
  if (!found.ok) return found;
  const { request_id: _id, op: _op, ...args } = req;
  const built = await handoffDocument(ctx.catalog, ctx.server.home, { ...args, agent: found.entry.agent });
  if (!built.ok) {
    const e = built.error;
    return e.code === 'internal_error' ? fail(e.code, e.message) : fail(e.code, e.message, e.field);
  }
  const { document: doc, source } = built.value;
  const redacted =
    doc.redacted === undefined
      ? undefined
      : Object.fromEntries(Object.entries(doc.redacted).filter(([, n]) => n > 0));
  return done({
    items: doc.items,
    entries: doc.entries,
    bytes: doc.bytes,
    tokens: doc.tokens,
    bytes_per_token: BYTES_PER_TOKEN,
    max_bytes: HANDOFF_MAX_BYTES,
    ...(redacted === undefined ? {} : { redacted }),
    ...(doc.findings === undefined ? {} : { findings: doc.findings }),
    ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
    ...(doc.lastItem === undefined ? {} : { last_item: doc.lastItem }),
  });
};
