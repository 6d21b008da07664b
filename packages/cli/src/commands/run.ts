// cairn run: one headless turn of an agent through the agent wire, streamed to stdout.
import { resolve as resolvePath } from 'node:path';
import type { AgentFrameOf, ForkOpen } from '@cairn/protocol';
import { cairnHomeOf, findBridge } from '@cairn/runner';
import { type DriveNotice, LOCAL_WORKSTATION, type LoggedEvent, startLocalDrive } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { unknownDriven } from '../driven-agent.js';
import { resolveRef } from '../refs.js';
import { bareRuleFlags, decide, ruleLine, runPermissionRules } from '../run-permissions.js';
import { readStdin } from '../stdin-text.js';
import { TurnPrinter } from '../turn-printer.js';
import { TurnSummary } from '../turn-summary.js';
import { Failure, parseCommand, UsageError } from '../usage.js';

const USAGE =
  'cairn run <agent> [--cwd DIR] [--session REF] [--mode M] [--model ID] [--allow RULE] [--deny RULE] [--json] "prompt" | -';

const AUTH_REQUIRED = -32000;

/** What `runCommand` answers, instead of an exit code, when the fork it was asked for cannot be made. */
export const FORK_REFUSED = -1;

/** What another command that streams a turn this way (`cairn handoff`) learns as it goes. */
export interface RunHooks {
  /** Open the session as the agent's own fork of one it keeps, instead of a new one. */
  readonly fork?: ForkOpen;
  /**
   * The agent cannot make that fork: nothing was run or printed, and `runCommand` answers
   * {@link FORK_REFUSED}, so the caller can take another way.
   */
  readonly onForkRefused?: (reason: string) => void;
  /** The session is open and its first prompt was taken: the agent's own session id is known. */
  readonly onPrompted?: (opened: { sessionRef: string; nativeSessionId?: string | null }) => void;
}

export async function runCommand(
  platform: SessionPlatform,
  argv: string[],
  hooks: RunHooks = {},
): Promise<number> {
  const { values, positionals } = parseCommand(
    bareRuleFlags(argv),
    {
      cwd: { type: 'string' },
      session: { type: 'string' },
      mode: { type: 'string' },
      model: { type: 'string' },
      allow: { type: 'string', multiple: true },
      deny: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      'turn-timeout': { type: 'string' },
    },
    USAGE,
  );
  const [agent, ...words] = positionals;
  if (agent === undefined) throw new UsageError(`missing agent\nusage: ${USAGE}`);
  // `-`, or no prompt with something piped in: the prompt is standard input.
  const fromStdin = (words.length === 1 && words[0] === '-') || (words.length === 0 && !process.stdin.isTTY);
  const prompt = (fromStdin ? await readStdin() : words.join(' ')).trim();
  if (prompt === '')
    throw new UsageError(`missing prompt${fromStdin ? ' (standard input was empty)' : ''}\nusage: ${USAGE}`);
  const turnSeconds = values['turn-timeout'] === undefined ? undefined : Number(values['turn-timeout']);
  if (turnSeconds !== undefined && !(Number.isFinite(turnSeconds) && turnSeconds > 0)) {
    throw new UsageError(`--turn-timeout takes a number of seconds\nusage: ${USAGE}`);
  }

  const env = platform.env as Record<string, string | undefined>;
  const cairnHome = cairnHomeOf(env);
  const bridge = await findBridge(cairnHome, agent);
  if (!bridge) throw await unknownDriven(cairnHome, agent, USAGE);
  const rules = await runPermissionRules({ allow: values.allow, deny: values.deny }, cairnHome, USAGE);

  let cwd = values.cwd ?? process.cwd();
  let nativeSessionId: string | undefined;
  if (values.session !== undefined) {
    const continued = await sessionToContinue(platform, values.session, bridge.key);
    nativeSessionId = continued.nativeSessionId;
    if (values.cwd === undefined && continued.cwd) cwd = continued.cwd;
  }

  const printer = new TurnPrinter(process.stdout, process.stderr, { json: values.json === true });
  const summary = values.json === true ? new TurnSummary(bridge.key) : undefined;
  const drive = await startLocalDrive({
    cairnHome,
    env,
    log: (line) => {
      if (env.CAIRN_DEBUG) process.stderr.write(`${line}\n`);
    },
    ...(turnSeconds === undefined ? {} : { limits: { turnMs: turnSeconds * 1000 } }),
  });
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    if (sessionRef) drive.server.interrupt(sessionRef);
  };
  let sessionRef: string | undefined;
  process.on('SIGINT', onSigint);
  try {
    const opened = await drive.server.open({
      workstation: LOCAL_WORKSTATION,
      agentKey: bridge.key,
      bridge: bridge.key,
      cwd,
      ...(nativeSessionId ? { nativeSessionId } : {}),
      ...(hooks.fork ? { fork: hooks.fork } : {}),
    });
    sessionRef = opened.sessionRef;
    if (!opened.ok && opened.forkUnsupported && hooks.onForkRefused) {
      hooks.onForkRefused(opened.error ?? 'the agent cannot fork');
      return FORK_REFUSED;
    }
    if (!opened.ok)
      return refused(printer, bridge.key, opened.error ?? 'the agent did not open', opened.errorCode);
    printer.opened(opened);
    for (const kind of ['mode', 'model'] as const) {
      const value = values[kind];
      if (value === undefined) continue;
      const set = await setSelect(drive.server, sessionRef, opened.configOptions ?? null, kind, value);
      if (!set.ok) return refused(printer, bridge.key, set.error);
    }

    const ended = new Promise<LoggedEvent | { lost: string }>((resolve) => {
      drive.server.subscribe(opened.sessionRef, (notice: DriveNotice) => {
        if (notice.kind === 'lost') {
          resolve({ lost: notice.error });
          return;
        }
        const { event } = notice;
        printer.event(event);
        summary?.event(event);
        if (event.eventName === 'permission_request') {
          void decide(event.payload, rules, resolvePath(cwd), onSigint).then((decision) => {
            // Said on stderr in both modes, so a script's JSON stays events only.
            if (decision.rule) process.stderr.write(`  ⎿ ${ruleLine(decision.rule)}\n`);
            drive.server.answer(opened.sessionRef, String(event.payload.requestId), decision.optionId);
          });
        }
        if (event.eventName === 'agent_turn_done') resolve(event);
      });
    });
    summary?.started(opened.nativeSessionId ?? null);
    const sent = drive.server.prompt(opened.sessionRef, prompt);
    if (!sent.ok) return refused(printer, bridge.key, sent.error);
    hooks.onPrompted?.(opened);
    const end = await ended;
    printer.finish();
    if (summary) {
      const line =
        'lost' in end
          ? summary.line({ status: 'failed', error: end.lost })
          : summary.line(end.payload as unknown as AgentFrameOf<'agent_turn_done'>);
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
    if ('lost' in end) return refused(printer, bridge.key, end.lost);
    const done = end.payload as unknown as AgentFrameOf<'agent_turn_done'>;
    if (interrupted) return 130;
    if (done.status !== 'completed') {
      return refused(printer, bridge.key, done.error ?? `the turn ended ${done.status}`, done.errorCode);
    }
    return done.stopReason === 'end_turn'
      ? 0
      : refused(printer, bridge.key, `the agent stopped: ${done.stopReason}`);
  } finally {
    process.off('SIGINT', onSigint);
    if (sessionRef) drive.server.closeSession(sessionRef);
    await drive.close();
  }
}

function refused(printer: TurnPrinter, agent: string, message: string, errorCode?: number | null): number {
  printer.finish();
  const line =
    errorCode === AUTH_REQUIRED
      ? `not signed in to ${agent}: cairn agents login ${agent}`
      : `${agent}: ${oneLine(message)}`;
  process.stderr.write(`cairn run: ${line}\n`);
  return 1;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}

/** A session to continue: a cairn session (its id is the agent's own) or a native id as given. */
async function sessionToContinue(
  platform: SessionPlatform,
  ref: string,
  agent: string,
): Promise<{ nativeSessionId: string; cwd?: string }> {
  try {
    const resolved = await resolveRef(platform, ref, agent);
    const id = resolved.target.sessionId ?? resolved.head?.id;
    if (id) return { nativeSessionId: id, ...(resolved.head?.cwd ? { cwd: resolved.head.cwd } : {}) };
  } catch (error) {
    // Ambiguity is the user's to settle; anything else reads as the agent's own id.
    if (!(error instanceof Failure) || /matches \d+ sessions/.test(error.message)) throw error;
  }
  const owner = await otherAgentsSession(platform, ref, agent);
  if (owner)
    throw new Failure(
      `'${ref}' is a session of ${owner}, not of ${agent}: continue it with cairn run ${owner} --session ${ref}`,
    );
  return { nativeSessionId: ref };
}

/** The agent whose session a reference names, when it is another agent than the one asked for. */
async function otherAgentsSession(
  platform: SessionPlatform,
  ref: string,
  agent: string,
): Promise<string | undefined> {
  try {
    const found = await resolveRef(platform, ref);
    const owner = found.target.agent ?? found.head?.agent;
    return owner !== undefined && owner !== agent ? owner : undefined;
  } catch {
    // Not one session any agent knows: the agent asked for may still know it by this id.
    return undefined;
  }
}

type ConfigOptions = AgentFrameOf<'agent_opened'>['configOptions'];

/**
 * `--mode` and `--model`: the agent's config option of that id or category set to the value asked
 * for, once checked against the values it offers. An agent with modes or models but no such option
 * is asked under the plain id, which the workstation turns into session/set_mode or
 * session/set_model (checked there against the agent's list).
 */
async function setSelect(
  server: Awaited<ReturnType<typeof startLocalDrive>>['server'],
  sessionRef: string,
  options: ConfigOptions,
  kind: 'mode' | 'model',
  wanted: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const option = (options ?? []).find((o) => o.id === kind || o.category === kind);
  if (option?.type === 'select') {
    const values = option.options.flatMap((o) => ('group' in o ? o.options : [o]));
    if (!values.some((v) => v.value === wanted)) {
      return {
        ok: false,
        error: `no ${kind} '${wanted}' (the agent offers ${values.map((v) => v.value).join(', ')})`,
      };
    }
  }
  const reply = await server.setConfigOption(sessionRef, option?.id ?? kind, wanted);
  return reply.ok ? { ok: true } : { ok: false, error: reply.error ?? `the agent refused the ${kind}` };
}
