// cairn agents: the agents cairn can drive, and installing, verifying and signing in to them.
import {
  API_KEY_QUERY,
  apiKeyVariable,
  cairnHomeOf,
  findBridge,
  isApiKeyMethod,
  readRoster,
} from '@cairn/runner';
import { LOCAL_WORKSTATION, startLocalDrive } from '@cairn/server';
import type { SessionPlatform } from '@cairn/transcript';
import { unknownDriven } from '../driven-agent.js';
import { askHidden, readStdin } from '../stdin-text.js';
import { Failure, noPositionals, parseCommand, UsageError } from '../usage.js';

const USAGE =
  'cairn agents [--json] | cairn agents install <agent> | cairn agents verify <agent> [--cwd DIR] | cairn agents login <agent> [--method M]';

export async function agentsCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { json: { type: 'boolean' }, method: { type: 'string' }, cwd: { type: 'string' } },
    USAGE,
  );
  const [action, agent, ...rest] = positionals;
  noPositionals(rest, USAGE);
  const env = platform.env as Record<string, string | undefined>;
  const cairnHome = cairnHomeOf(env);
  const json = values.json === true;
  const print = (value: unknown, text: string) =>
    process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);

  if (action === undefined) {
    const roster = await readRoster(cairnHome);
    for (const problem of roster.problems) process.stderr.write(`cairn agents: ${problem.message}\n`);
    const drive = await startLocalDrive({ cairnHome, env });
    try {
      const bridges = drive.server.roster(LOCAL_WORKSTATION);
      const rows = bridges.map((b) => {
        const state = b.adapterInstalled ? `installed${b.version ? ` ${b.version}` : ''}` : 'not installed';
        const traits = [
          b.cliInstalled ? 'cli' : '',
          b.supportsSteering ? 'steering' : '',
          b.supportsImageInput ? 'images' : '',
        ]
          .filter(Boolean)
          .join(',');
        return `${b.key.padEnd(12)} ${b.name.padEnd(14)} ${state.padEnd(20)} ${traits}`;
      });
      print({ agents: bridges, problems: roster.problems }, `${rows.join('\n')}\n`);
    } finally {
      await drive.close();
    }
    return 0;
  }
  if (agent === undefined) throw new UsageError(`missing agent\nusage: ${USAGE}`);
  if (!(await findBridge(cairnHome, agent))) throw await unknownDriven(cairnHome, agent, USAGE);
  const drive = await startLocalDrive({ cairnHome, env });
  try {
    switch (action) {
      case 'install': {
        if (!json) process.stderr.write(`installing ${agent}…\n`);
        const reply = await drive.server.install(LOCAL_WORKSTATION, agent);
        if (!reply.ok)
          throw new Failure(
            reply.unsupported
              ? `${agent} has nothing to install (it is your own command)`
              : (reply.error ?? 'install failed'),
          );
        const note = reply.pinnedVersionUnavailable
          ? ` (pinned ${reply.pinnedVersionUnavailable.pinned} unavailable; installed ${reply.pinnedVersionUnavailable.installedInstead})`
          : '';
        print(reply, `${agent}: ${reply.alreadyInstalled ? 'already installed' : 'installed'}${note}\n`);
        return 0;
      }
      case 'verify': {
        const reply = await drive.server.verify(LOCAL_WORKSTATION, agent, {
          probeSession: true,
          cwd: values.cwd ?? process.cwd(),
        });
        if (!reply.ok) throw new Failure(reply.error ?? 'the agent could not be verified');
        const methods = (reply.authMethods ?? []).map((m) => m.id).join(', ');
        const state = reply.authenticated
          ? 'signed in (it accepted a session)'
          : `not verified: ${reply.sessionError ?? 'unknown'}${methods ? `\n  sign in with: cairn agents login ${agent} --method <${methods}>` : ''}`;
        print(reply, `${agent}: ${state}\n`);
        return reply.authenticated ? 0 : 1;
      }
      case 'login': {
        let method = values.method;
        if (method === undefined) {
          const verified = await drive.server.verify(LOCAL_WORKSTATION, agent, {});
          const methods = verified.authMethods ?? [];
          if (methods.length === 0) throw new Failure(`${agent} names no way to sign in; use its own CLI`);
          if (methods.length > 1) {
            throw new UsageError(
              `${agent} offers several ways to sign in: ${methods.map((m) => m.id).join(', ')}; pick one with --method`,
            );
          }
          method = methods[0]!.id;
        }
        const key = await apiKeyToKeep(agent, method, env);
        if (key === null) return 130;
        const query = key === undefined ? {} : { [API_KEY_QUERY]: key };
        const reply = await drive.server.authenticate(LOCAL_WORKSTATION, agent, method, query, (step) => {
          if (step.url) process.stderr.write(`open this address to sign in: ${step.url}\n`);
          else if (step.done) process.stderr.write('the sign-in in the browser is done\n');
        });
        if (!reply.ok) throw new Failure(reply.error ?? 'sign-in failed');
        print(reply, `${agent}: signed in with ${method}\n`);
        return 0;
      }
      default:
        throw new UsageError(`unknown action '${action}'\nusage: ${USAGE}`);
    }
  } finally {
    await drive.close();
  }
}

/**
 * The key an API-key sign-in keeps: piped to standard input, else typed on the terminal without
 * echo. Undefined when the method takes no key cairn can keep, the agent's own variable already
 * holds one or nothing was piped (the agent then reads its environment itself); null when the
 * person abandoned the question.
 */
async function apiKeyToKeep(
  agent: string,
  method: string,
  env: Record<string, string | undefined>,
): Promise<string | null | undefined> {
  // A key cairn cannot hand to the agent (it does not know the agent's variable) is not asked for.
  const variable = isApiKeyMethod({ id: method }) ? apiKeyVariable(agent, method) : undefined;
  if (variable === undefined) return undefined;
  if (process.stdin.isTTY) {
    if (env[variable]) return undefined;
    const typed = await askHidden(`API key for ${agent} (kept for it as ${variable}): `);
    if (typed === undefined) return null;
    if (typed.trim() === '') throw new Failure('no key was typed');
    return typed.trim();
  }
  const piped = (await readStdin()).trim().split('\n')[0]?.trim() ?? '';
  // Nothing piped: the agent signs in with what its environment holds, as it always could.
  return piped === '' ? undefined : piped;
}
