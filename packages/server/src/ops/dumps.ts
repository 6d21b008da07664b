// `session_dump_write` and `dump_presets_read`.
import { readDumpPresets, writeDump } from '@cairn/transcript';
import { done, fail, type OpHandler, sessionOf } from './context.js';

export const sessionDumpWrite: OpHandler<'session_dump_write'> = async (req, ctx) => {
  const found = await sessionOf(ctx, req.sid, req.agent);
  if (!found.ok) return found;
  const presets = await readDumpPresets(ctx.server.home);
  if (!presets.ok) return fail('internal_error', presets.error.message);
  const loaded = await ctx.catalog.load(found.entry.key);
  if (!loaded) return fail('not_found', `session ${req.sid} could not be read`, '/sid');
  const { request_id: _id, op: _op, ...args } = req;
  const written = await writeDump(loaded.transcript, args, {
    home: ctx.server.home,
    forbidden: [...ctx.server.agentHomes],
    presets: presets.value,
  });
  if (!written.ok) {
    const e = written.error;
    if ('code' in e && (e.code === 'invalid_args' || e.code === 'not_found'))
      return fail(e.code, e.message, `/${e.field}`);
    return fail('internal_error', e.message);
  }
  return done(written.value);
};

export const dumpPresetsRead: OpHandler<'dump_presets_read'> = async (_req, ctx) => {
  const presets = await readDumpPresets(ctx.server.home);
  if (!presets.ok) return fail('internal_error', presets.error.message);
  return done({ presets: presets.value });
};
