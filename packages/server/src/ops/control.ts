// `session_kill`, `session_env_read`, `session_fork_origin` and `session_last_live_remove`: acting on
// a session rather than reading its transcript.
import { done, fail, type OpContext, type OpHandler } from './context.js';
import type { DrivenSession } from './driven.js';

/** The open driven session the request names, of the agent it names when it names one. */
async function drivenOf(
  ctx: OpContext,
  sid: string,
  agent: string | undefined,
): Promise<DrivenSession | undefined> {
  const hit = await ctx.drive?.find(sid);
  return hit !== undefined && (agent === undefined || hit.agentKey === agent) ? hit : undefined;
}

/** Ends a driven session on its workstation. A session this server only reads from disk runs in a
 * terminal or an editor it has no hold on: `unsupported`, and nothing is signalled. */
export const sessionKill: OpHandler<'session_kill'> = async (req, ctx) => {
  // Whether this person may drive it was settled before the op ran (gate/op-access.ts).
  const driven = await drivenOf(ctx, req.sid, req.agent);
  if (driven !== undefined && ctx.drive !== undefined) {
    const terminated = ctx.drive.connected(driven.workstation);
    ctx.drive.close(driven.sessionRef);
    return done({ terminated });
  }
  const entry = await ctx.catalog.findListed(req.sid, req.agent);
  if (entry)
    return fail(
      'unsupported',
      `session ${req.sid} is not driven by this server, which cannot end it`,
      '/sid',
    );
  return fail('not_found', `no session ${req.sid}`, '/sid');
};

/** Where a session runs and as what, from what this server knows: the drive's record for a session it
 * drives, the session's files otherwise. Never the process's variables. */
export const sessionEnvRead: OpHandler<'session_env_read'> = async (req, ctx) => {
  const instance = ctx.server.instance;
  const driven = await drivenOf(ctx, req.sid, req.agent);
  if (driven !== undefined) {
    return done({
      sid: req.sid,
      agent: driven.agentKey,
      instance,
      driven: true,
      cwd: driven.cwd,
      workstation: driven.workstation,
      bridge: driven.bridge,
      session_ref: driven.sessionRef,
    });
  }
  const entry = await ctx.catalog.findListed(req.sid, req.agent);
  if (!entry) return fail('not_found', `no session ${req.sid}`, '/sid');
  return done({
    sid: entry.sid,
    agent: entry.agent,
    instance,
    driven: false,
    ...(entry.head.cwd === undefined ? {} : { cwd: entry.head.cwd }),
  });
};

/** Not placed by this server yet: a known session is answered `unsupported`, an unknown one
 * `not_found`. */
export const sessionForkOrigin: OpHandler<'session_fork_origin'> = async (req, ctx) => {
  const entry = await ctx.catalog.findListed(req.sid, req.agent);
  if (!entry) return fail('not_found', `no session ${req.sid}`, '/sid');
  return fail('unsupported', 'this server does not find where a forked session departs from its origin');
};

/** This server keeps no list of the sessions that were running when it last stopped (see the op's
 * schema), so there is never an entry to drop. */
export const sessionLastLiveRemove: OpHandler<'session_last_live_remove'> = async () =>
  done({ removed: false });
