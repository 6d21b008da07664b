// `cairn workstation` in a process of its own, as on another machine: its own $CAIRN_HOME whose
// config declares the scripted agent as `wire`, its ticket in CAIRN_TICKET (never in argv), and
// killed when the test ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = resolve(fileURLToPath(new URL('../../../../bin/cairn.js', import.meta.url)));
const WIRE_AGENT = fileURLToPath(new URL('./wire-agent.mjs', import.meta.url));

export function startWorkstationProcess(options: {
  /** The server's address, or its processes' addresses in the order to try them. */
  serverUrl: string | readonly string[];
  ticket: string;
  cairnHome: string;
  /** The scripted agent's settings (WIRE_AGENT_*). */
  env?: Record<string, string>;
  onCleanup: (stop: () => Promise<void>) => void;
}): ChildProcess {
  const { cairnHome } = options;
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
  );
  const servers = typeof options.serverUrl === 'string' ? [options.serverUrl] : options.serverUrl;
  const child = spawn(process.execPath, [bin, 'workstation', ...servers.flatMap((s) => ['--server', s])], {
    env: {
      PATH: process.env.PATH,
      HOME: cairnHome,
      CAIRN_HOME: cairnHome,
      CAIRN_TICKET: options.ticket,
      ...options.env,
    },
    // Nothing reads its log: a pipe left unread would stop a talkative workstation once full.
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  options.onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return child;
}
