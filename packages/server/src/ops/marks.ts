// `session_marks_read` and `session_marks_write`: a person's stars and tags, in cairn's own state.
import { badTag } from '../storage/marks-store.js';
import { done, fail, type OpHandler } from './context.js';

export const sessionMarksRead: OpHandler<'session_marks_read'> = async (req, ctx) => {
  const filter: { agent?: string; sid?: string } = {};
  if (req.agent !== undefined) filter.agent = req.agent;
  if (req.sid !== undefined) filter.sid = req.sid;
  return done({ marks: ctx.marks().read(filter) });
};

export const sessionMarksWrite: OpHandler<'session_marks_write'> = async (req, ctx) => {
  if (req.tags !== undefined) {
    const bad = badTag(req.tags);
    if (bad !== undefined)
      return fail('invalid_args', 'a tag may not be blank or hold a control character', `/tags/${bad}`);
  }
  // Marks are for sessions this server lists; the agent is part of the key, as two agents' ids
  // could be alike.
  const entry = await ctx.catalog.findListed(req.sid, req.agent);
  if (!entry) return fail('not_found', `no session ${req.sid} of ${req.agent}`, '/sid');
  const marks = ctx.marks().write(entry.agent, entry.sid, {
    ...(req.starred !== undefined ? { starred: req.starred } : {}),
    ...(req.tags !== undefined ? { tags: req.tags } : {}),
    ...(req.star_items !== undefined ? { starItems: req.star_items } : {}),
    ...(req.unstar_items !== undefined ? { unstarItems: req.unstar_items } : {}),
  });
  return done({ marks });
};
