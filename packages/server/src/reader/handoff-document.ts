// The hand-off document of a listed session, as the daemon builds it for `session_handoff_preview`
// and for a chat started with it: the same arguments measure it and send it, so what was shown
// before sending is what goes.
import type { SessionHandoffPreviewArgs } from '@cairn/protocol';
import {
  agentForkCut,
  buildHandoff,
  type ForkCut,
  type HandoffDocument,
  type HandoffSource,
  readDumpPresets,
} from '@cairn/transcript';
import type { Catalog } from './catalog.js';

const LISTING_WAIT_MS = 5_000;
const LISTING_POLL_MS = 250;

export interface BuiltHandoff {
  readonly document: HandoffDocument;
  readonly source: HandoffSource;
  /** For a fork at an item: where the agent's own fork would cut, or why it cannot. */
  readonly cut?: ForkCut;
}

export type HandoffProblem = {
  readonly code: 'not_found' | 'invalid_args' | 'internal_error';
  readonly message: string;
  readonly field?: string;
};

export async function handoffDocument(
  catalog: Catalog,
  home: string,
  args: SessionHandoffPreviewArgs,
): Promise<{ ok: true; value: BuiltHandoff } | { ok: false; error: HandoffProblem }> {
  const { sid, agent, to, kind, prompt, redact, keep, ...selection } = args;
  let entry = await catalog.findListed(sid, agent);
  // A session an agent has just written (the chat whose turn a limit stopped) may not be listed yet.
  for (let waited = 0; !entry && waited < LISTING_WAIT_MS; waited += LISTING_POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, LISTING_POLL_MS));
    entry = catalog.find(sid, agent);
  }
  if (!entry)
    return {
      ok: false,
      error: { code: 'not_found', message: `no session ${sid}${agent ? ` of ${agent}` : ''}`, field: '/sid' },
    };
  const presets = await readDumpPresets(home);
  if (!presets.ok) return { ok: false, error: { code: 'internal_error', message: presets.error.message } };
  const loaded = await catalog.load(entry.key);
  if (!loaded)
    return {
      ok: false,
      error: { code: 'not_found', message: `session ${sid} could not be read`, field: '/sid' },
    };
  const t = loaded.transcript;
  const source: HandoffSource = {
    agent: entry.agent,
    sid: entry.sid,
    title: catalog.headTexts([entry]).get(entry.key)?.title ?? t.session.title,
    cwd: entry.head.cwd ?? t.session.cwd,
  };
  const built = await buildHandoff(
    t,
    source,
    { selection, prompt, kind: kind ?? 'handoff', to, redact: redact !== false, keep },
    { presets: presets.value, now: Date.now() },
  );
  if (!built.ok) {
    const e = built.error;
    return { ok: false, error: { code: e.code, message: e.message, field: `/${e.field}` } };
  }
  const at = kind === 'fork' ? selection.until_uuid : undefined;
  return {
    ok: true,
    value: { document: built.value, source, ...(at === undefined ? {} : { cut: agentForkCut(t, at) }) },
  };
}
