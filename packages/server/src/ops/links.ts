// `session_links_read`: which sessions carry on from which, from cairn's own links file. The CLI
// writes that file without a daemon, so each read opens it afresh rather than holding it open.
import { readLinks } from '../storage/links-store.js';
import { done, fail, type OpHandler } from './context.js';

export const sessionLinksRead: OpHandler<'session_links_read'> = async (req, ctx) => {
  const filter: { agent?: string; sid?: string } = {};
  if (req.agent !== undefined) filter.agent = req.agent;
  if (req.sid !== undefined) filter.sid = req.sid;
  try {
    return done({ links: readLinks(ctx.server.home, filter) });
  } catch (error) {
    return fail('internal_error', (error as Error).message);
  }
};
