// cairn run: one headless turn of an agent through the agent wire, streamed to stdout.
import { createInterface } from 'node:readline/promises';
import type { AgentFrameOf } from '@cairn/protocol';
import { cairnHomeOf, findBridge } from '@cairn/runner';
import { type DriveNotice, LOCAL_WORKSTATION, type LoggedEvent, startLocalDrive } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { unknownDriven } from '../driven-agent.js';
import { resolveRef } from '../refs.js';
import { TurnPrinter } from '../turn-printer.js';
import { Failure, parseCommand, UsageError } from '../usage.js';

const USAGE = 'cairn run <agent> [--cwd DIR] [--session REF] [--mode M] [--allow|--deny] [--json] "prompt"';

const AUTH_REQUIRED = -32000;

export async function runCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      cwd: { type: 'string' },
      session: { type: 'string' },
      mode: { type: 'string' },
      allow: { type: 'boolean' },
      deny: { type: 'boolean' },
      json: { type: 'boolean' },
      'turn-timeout': { type: 'string' },
    },
    USAGE,
  );
  const [agent, ...words] = positionals;
  if (agent === undefined) throw new UsageError(`missing agent\nusage: ${USAGE}`);
  const prompt = words.join(' ').trim();
  if (prompt === '') throw new UsageError(`missing prompt\nusage: ${USAGE}`);
  if (values.allow && values.deny)
    throw new UsageError(`--allow and --deny exclude each other\nusage: ${USAGE}`);
  const turnSeconds = values['turn-timeout'] === undefined ? undefined : Number(values['turn-timeout']);
  if (turnSeconds !== undefined && !(Number.isFinite(turnSeconds) && turnSeconds > 0)) {
    throw new UsageError(`--turn-timeout takes a number of seconds\nusage: ${USAGE}`);
  }

  const env = platform.env as Record<string, string | undefined>;
  const cairnHome = cairnHomeOf(env);
  const bridge = await findBridge(cairnHome, agent);
  if (!bridge) throw await unknownDriven(cairnHome, agent, USAGE);

  let cwd = values.cwd ?? process.cwd();
  let nativeSessionId: string | undefined;
  if (values.session !== undefined) {
    const continued = await sessionToContinue(platform, values.session, bridge.key);
    nativeSessionId = continued.nativeSessionId;
    if (values.cwd === undefined && continued.cwd) cwd = continued.cwd;
  }

  const printer = new TurnPrinter(process.stdout, process.stderr, { json: values.json === true });
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
    });
    sessionRef = opened.sessionRef;
    if (!opened.ok)
      return refused(printer, bridge.key, opened.error ?? 'the agent did not open', opened.errorCode);
    printer.opened(opened);
    if (values.mode !== undefined) {
      const set = await setMode(drive.server, sessionRef, opened.configOptions ?? null, values.mode);
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
        if (event.eventName === 'permission_request') {
          void decide(event.payload, values.allow === true, values.deny === true, onSigint).then((optionId) =>
            drive.server.answer(opened.sessionRef, String(event.payload.requestId), optionId),
          );
        }
        if (event.eventName === 'agent_turn_done') resolve(event);
      });
    });
    const sent = drive.server.prompt(opened.sessionRef, prompt);
    if (!sent.ok) return refused(printer, bridge.key, sent.error);
    const end = await ended;
    printer.finish();
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
 * `--mode`: the agent's mode config option (by id or category) set to the value asked for; an
 * agent with modes but no such option is asked through `mode`, which the workstation turns into
 * session/set_mode.
 */
async function setMode(
  server: Awaited<ReturnType<typeof startLocalDrive>>['server'],
  sessionRef: string,
  options: ConfigOptions,
  mode: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const option = (options ?? []).find((o) => o.id === 'mode' || o.category === 'mode');
  if (option?.type === 'select') {
    const values = option.options.flatMap((o) => ('group' in o ? o.options : [o]));
    if (!values.some((v) => v.value === mode)) {
      return {
        ok: false,
        error: `no mode '${mode}' (the agent offers ${values.map((v) => v.value).join(', ')})`,
      };
    }
  }
  const reply = await server.setConfigOption(sessionRef, option?.id ?? 'mode', mode);
  return reply.ok ? { ok: true } : { ok: false, error: reply.error ?? 'the agent refused the mode' };
}

interface PermissionOption {
  optionId: string;
  name: string;
  kind: string;
}

/**
 * The option to answer with: by flag, else asked on the terminal, else refused. Ctrl-C at the
 * question (the terminal is raw then, so it reaches the prompt rather than the process) cancels
 * the turn as it would anywhere else.
 */
async function decide(
  payload: Record<string, unknown>,
  allow: boolean,
  deny: boolean,
  onInterrupt: () => void,
): Promise<string> {
  const options = (payload.options as PermissionOption[] | undefined) ?? [];
  // The first kind named that the agent offers: a one-time answer before a standing one.
  const pick = (kinds: string[]) =>
    kinds.map((kind) => options.find((o) => o.kind === kind)).find((o) => o !== undefined)?.optionId;
  if (allow) return pick(['allow_once', 'allow_always']) ?? 'cancelled';
  if (deny || !process.stdin.isTTY) {
    if (!deny)
      process.stderr.write('cairn run: a permission was asked with no terminal to answer it; refused\n');
    return pick(['reject_once', 'reject_always']) ?? 'cancelled';
  }
  for (const [i, o] of options.entries()) process.stderr.write(`  ${i + 1}. ${o.name}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const asking = new AbortController();
  rl.on('SIGINT', () => asking.abort());
  try {
    for (;;) {
      const answer = (await rl.question('choose a number: ', { signal: asking.signal })).trim();
      const chosen = options[Number(answer) - 1];
      if (chosen) return chosen.optionId;
    }
  } catch (error) {
    if (!asking.signal.aborted && (error as Error).name !== 'AbortError') throw error;
    process.stderr.write('\n');
    onInterrupt();
    return 'cancelled';
  } finally {
    rl.close();
  }
}
