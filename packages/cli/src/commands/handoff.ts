// cairn handoff: a session's chosen items, as a document headed by where they come from and what is
// asked, become the first prompt of a new session of another agent in the same project folder. The
// turn streams as `cairn run` streams it, and the two sessions are linked in cairn's own state.
import { existsSync, statSync } from 'node:fs';
import { AGENT_FRAME_MAX_BYTES, type SessionLink, type SessionLinkKind } from '@cairn/protocol';
import {
  agentForkCut,
  BYTES_PER_TOKEN,
  buildHandoff,
  cairnHome,
  findAdapter,
  type HandoffDocument,
  readDumpPresets,
  type SessionPlatform,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { bytes } from '../format.js';
import { nameOfPath } from '../refs.js';
import { bareRuleFlags } from '../run-permissions.js';
import { SELECTION_OPTIONS, type SelectionArgs, selectionArgs } from '../selection-args.js';
import { sessionLinkWriter } from '../session-links.js';
import { Failure, onePositional, parseCommand, UsageError } from '../usage.js';
import { asThrown, load, redactionLine } from './dump.js';

const USAGE =
  'cairn handoff <ref> --to <agent> [--preset P | --types a,b,-c] [--since T] [--until T] [--prompt "…"] [--cwd DIR] [--mode M] [--model ID] [--allow RULE] [--deny RULE] [--no-redact] [--dry-run] [--json]';

/** The preset a hand-off uses when no selection is given: what was asked, said and done. */
export const DEFAULT_HANDOFF_PRESET = 'howto';

/** Options a hand-off passes on to the turn, as `cairn run` takes them. */
export const TURN_OPTIONS = {
  cwd: { type: 'string' },
  mode: { type: 'string' },
  model: { type: 'string' },
  allow: { type: 'string', multiple: true },
  deny: { type: 'string', multiple: true },
  'turn-timeout': { type: 'string' },
  prompt: { type: 'string' },
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  'no-redact': { type: 'boolean' },
} as const;

export async function handoffCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    bareRuleFlags(argv),
    { ...SELECTION_OPTIONS, to: { type: 'string' }, ...TURN_OPTIONS },
    USAGE,
  );
  const ref = onePositional(positionals, USAGE, '<ref>');
  if (values.to === undefined) throw new UsageError(`missing --to <agent>\nusage: ${USAGE}`);
  const selected = selectionArgs(values, USAGE);
  return handOff(platform, {
    ref,
    agent: agentOption(values.agent, USAGE),
    to: values.to,
    kind: 'handoff',
    selection:
      selected.preset === undefined && selected.types === undefined
        ? { ...selected, preset: DEFAULT_HANDOFF_PRESET }
        : selected,
    turn: values,
    usage: USAGE,
  });
}

export interface TurnValues {
  cwd?: string | undefined;
  mode?: string | undefined;
  model?: string | undefined;
  /** Permission rules, as `cairn run` takes them (`*` for a bare switch). */
  allow?: string[] | undefined;
  deny?: string[] | undefined;
  'turn-timeout'?: string | undefined;
  prompt?: string | undefined;
  'dry-run'?: boolean | undefined;
  json?: boolean | undefined;
  'no-redact'?: boolean | undefined;
}

export interface HandOffRequest {
  readonly ref: string;
  /** The source's agent, when the ref needs one to be found. */
  readonly agent: string | undefined;
  /** The agent to carry on in; the source's own when absent. */
  readonly to: string | undefined;
  readonly kind: SessionLinkKind;
  readonly selection: SelectionArgs;
  /** The item a fork goes on from; a hand-off's link names the last item given. */
  readonly atItem?: string;
  /** A fork may go through the agent's own fork (no selection was asked for that only a document makes). */
  readonly agentFork?: boolean;
  readonly turn: TurnValues;
  readonly usage: string;
}

/** Builds the document, then prints it (`--dry-run`) or starts the new session with it and links the two. */
export async function handOff(platform: SessionPlatform, request: HandOffRequest): Promise<number> {
  const { turn, usage } = request;
  const env = platform.env as Record<string, string | undefined>;
  if (turn.prompt !== undefined && turn.prompt.trim() === '')
    throw new UsageError(`--prompt is empty\nusage: ${usage}`);

  const loaded = await load(platform, request.ref, request.agent);
  const { t, head } = loaded;
  // A file named by its path is linked under the id its agent's listing gives it, as `summary` names it.
  const sid = head ? loaded.sid : ((await nameOfPath(platform, { path: loaded.path }))?.id ?? loaded.sid);
  const toKey = request.to ?? t.agent;
  // The drive's code is large and only a sent hand-off runs it; the roster is all a dry run needs.
  const { cairnHomeOf, findBridge } = await import('@cairn/runner');
  const { unknownDriven } = await import('../driven-agent.js');
  const bridge = await findBridge(cairnHomeOf(env), toKey);
  if (!bridge) throw await unknownDriven(cairnHomeOf(env), toKey, usage);
  const toAgent = findAdapter(bridge.key)?.id ?? bridge.key;

  const presets = await readDumpPresets(cairnHome(platform.env, platform.homeDir));
  if (!presets.ok) throw new Failure(presets.error.message);
  const source = {
    agent: t.agent,
    sid,
    title: head?.title ?? t.session.title,
    cwd: head?.cwd ?? t.session.cwd,
  };
  const built = await buildHandoff(
    t,
    source,
    {
      selection: request.selection,
      prompt: turn.prompt,
      kind: request.kind,
      to: toAgent,
      redact: !turn['no-redact'],
    },
    { presets: presets.value, now: Date.now() },
  );
  if (!built.ok) {
    if (request.atItem !== undefined && built.error.field === 'until_uuid') {
      const lane =
        request.selection.agent_id === undefined ? '' : ` (subagent ${request.selection.agent_id})`;
      throw new Failure(
        `no item '${request.atItem}' in ${t.agent} session ${sid}${lane}; cairn show ${sid} --types @${DEFAULT_HANDOFF_PRESET} lists the items and their ids`,
      );
    }
    throw asThrown(built.error, usage);
  }
  const doc = built.value;
  if (doc.items === 0)
    throw new Failure(`the selection keeps no item of ${t.agent} session ${sid}: nothing to hand off`);
  const facts = {
    kind: request.kind,
    from: { agent: t.agent, sid },
    to: toAgent,
    items: doc.items,
    entries: doc.entries,
    bytes: doc.bytes,
    tokens: doc.tokens,
    tokens_estimate: `UTF-8 bytes / ${BYTES_PER_TOKEN}`,
    ...(doc.redacted === undefined ? {} : { redacted: doc.redacted }),
  };

  // The agent's own fork, where it can cut at the item: the same agent, and no selection asked for.
  const throughAgent =
    request.agentFork === true && request.atItem !== undefined && bridge.key === t.agent
      ? agentForkCut(t, request.atItem).ok
      : false;
  if (turn['dry-run']) {
    if (turn.json)
      process.stdout.write(
        `${JSON.stringify({ ...facts, ...(throughAgent ? { via: 'agent' } : {}), document: doc.markdown }, null, 2)}\n`,
      );
    else {
      process.stdout.write(doc.markdown);
      const via = throughAgent
        ? `\n${t.agent} would fork it itself; this document is what it gets if it cannot`
        : '';
      process.stderr.write(
        `${sizeLine(doc)}\n${redactionLine(doc.redacted)}${via}\nnothing sent (--dry-run)\n`,
      );
    }
    return 0;
  }

  const cwd = turn.cwd ?? source.cwd;
  if (cwd === undefined)
    throw new Failure(`${t.agent} session ${sid} names no project folder: give --cwd DIR\nusage: ${usage}`);
  if (!isFolder(cwd))
    throw new Failure(
      `the project folder of ${t.agent} session ${sid}, ${cwd}, is not a folder here: give --cwd DIR`,
    );
  if (throughAgent && request.atItem !== undefined) {
    const { forkThroughAgent } = await import('./fork-agent.js');
    const code = await forkThroughAgent(platform, {
      t,
      sid,
      bridge: bridge.key,
      atItem: request.atItem,
      cwd,
      turn,
    });
    if (code !== undefined) return code;
  }
  // The prompt travels in one agent-wire frame; JSON escaping can near double its size.
  if (doc.bytes > AGENT_FRAME_MAX_BYTES / 2)
    throw new Failure(
      `the document is ${bytes(doc.bytes)}, more than one prompt can carry (${bytes(AGENT_FRAME_MAX_BYTES / 2)}): narrow it with --since, --until or --types`,
    );
  if (turn.json) process.stdout.write(`${JSON.stringify({ event: 'handoff', ...facts, cwd })}\n`);
  else
    process.stderr.write(
      `${request.kind === 'fork' ? 'forking' : 'handing off'} ${sizeLine(doc)} to ${toAgent}\n`,
    );

  const atItem = request.atItem ?? doc.lastItem;
  const keepLink = await sessionLinkWriter(platform);
  let linked = false;
  let linkFailed = false;
  // The drive (server half, workstation) is loaded only when a turn is run, not for --dry-run.
  const { runCommand } = await import('./run.js');
  const code = await runCommand(platform, runArgs(bridge.key, cwd, turn, doc.markdown), {
    // Linked as soon as the new session took its first prompt, so the link is there while the turn
    // runs and stays whether the turn then ends well, fails or is cancelled.
    onPrompted: (opened) => {
      if (!opened.nativeSessionId) return;
      const link: SessionLink = {
        kind: request.kind,
        from: { agent: t.agent, sid },
        to: { agent: toAgent, sid: opened.nativeSessionId },
        ...(atItem === undefined ? {} : { at_item: atItem }),
        via: 'handoff',
        created_at: Date.now(),
      };
      try {
        keepLink(link);
      } catch (error) {
        // The turn goes on: the new session is there, only its link could not be kept.
        process.stderr.write(`cairn ${request.kind}: the link was not kept: ${(error as Error).message}\n`);
        linkFailed = true;
        return;
      }
      linked = true;
      if (turn.json) process.stdout.write(`${JSON.stringify({ event: 'link', link })}\n`);
      else
        process.stderr.write(
          `linked: ${link.to.agent} ${link.to.sid} carries on ${link.from.agent} ${link.from.sid}\n`,
        );
    },
  });
  if (!linked && code === 0 && !linkFailed)
    process.stderr.write(`cairn ${request.kind}: ${toAgent} named no session id; no link was kept\n`);
  return code;
}

/** `cairn run`'s arguments for the turn; the document goes after `--`, so nothing in it reads as an option. */
export function runArgs(agent: string, cwd: string, turn: TurnValues, document: string): string[] {
  return [
    agent,
    '--cwd',
    cwd,
    ...(turn.mode === undefined ? [] : ['--mode', turn.mode]),
    ...(turn.model === undefined ? [] : ['--model', turn.model]),
    ...(turn.allow ?? []).map((rule) => `--allow=${rule}`),
    ...(turn.deny ?? []).map((rule) => `--deny=${rule}`),
    ...(turn['turn-timeout'] === undefined ? [] : ['--turn-timeout', turn['turn-timeout']]),
    ...(turn.json ? ['--json'] : []),
    '--',
    document,
  ];
}

const sizeLine = (doc: HandoffDocument): string =>
  `${doc.items} items, ${bytes(doc.bytes)}, about ${doc.tokens} tokens (a token per ${BYTES_PER_TOKEN} bytes)`;

function isFolder(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isDirectory();
  } catch {
    return false;
  }
}
