// `hello`, `ping` and `shutdown`: the transport-level ops every client uses.
import { PROTOCOL_VERSION } from '@cairn/protocol';
import { done, fail, type OpHandler } from './context.js';

export const hello: OpHandler<'hello'> = async (req, ctx) => {
  if (req.protocol_version !== PROTOCOL_VERSION) {
    return fail('invalid_args', `this server speaks protocol ${PROTOCOL_VERSION}`, '/protocol_version');
  }
  if (req.role === 'session' && req.sid === undefined) {
    return fail('invalid_args', 'a session connection names its sid', '/sid');
  }
  if (req.role !== 'session' && req.sid !== undefined) {
    return fail('invalid_args', 'only a session connection names a sid', '/sid');
  }
  ctx.conn.role = req.role;
  ctx.conn.sid = req.sid;
  return done({
    protocol_version: PROTOCOL_VERSION,
    instance: ctx.server.instance,
    version: ctx.server.version,
    started_at: ctx.server.startedAt,
    agents: ctx.catalog.agents,
  });
};

export const ping: OpHandler<'ping'> = async (_req, ctx) => {
  const progress = ctx.catalog.indexProgress();
  const index =
    progress.state === 'ready'
      ? { state: 'ready' as const, sessions: ctx.catalog.all().length }
      : {
          state: 'building' as const,
          sessions: ctx.catalog.all().length,
          done: progress.done,
          total: progress.total,
        };
  return done({
    instance: ctx.server.instance,
    version: ctx.server.version,
    pid: process.pid,
    started_at: ctx.server.startedAt,
    clients: ctx.server.clients(),
    index,
  });
};

export const shutdown: OpHandler<'shutdown'> = async (_req, ctx) => {
  // After the reply is on its way.
  setImmediate(() => ctx.server.shutdown());
  return done({});
};
