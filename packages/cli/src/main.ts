// The cairn command line.
import { readFileSync } from 'node:fs';
import { nodePlatform } from '@cairn/transcript';
import { commandHelp, Failure, HELP, UsageError } from './usage.js';

type Command = (platform: ReturnType<typeof nodePlatform>, argv: string[]) => Promise<number>;

// Each command loads only its own code (the build splits them), so a quick command does not
// pay for the server, the index or the dump writer.
const commands: Record<string, () => Promise<Command>> = {
  agents: async () => (await import('./commands/agents.js')).agentsCommand,
  dump: async () => (await import('./commands/dump.js')).dumpCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  fork: async () => (await import('./commands/fork.js')).forkCommand,
  handoff: async () => (await import('./commands/handoff.js')).handoffCommand,
  run: async () => (await import('./commands/run.js')).runCommand,
  presets: async () => (await import('./commands/presets.js')).presetsCommand,
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  server: async () => (await import('./commands/server-users.js')).serverCommand,
  search: async () => (await import('./commands/search.js')).searchCommand,
  sessions: async () => (await import('./commands/sessions.js')).sessionsCommand,
  show: async () => (await import('./commands/show.js')).showCommand,
  workstation: async () => (await import('./commands/workstation.js')).workstationCommand,
  summary: async () => (await import('./commands/summary.js')).summaryCommand,
  url: async () => (await import('./commands/url.js')).urlCommand,
  usage: async () => (await import('./commands/usage.js')).usageCommand,
};

/** The package's version, from its package.json: three folders up both from src/ and from dist/. */
function version(): string {
  const manifest = new URL('../../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${HELP}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`cairn: unknown command '${name}'\n${HELP}\n`);
    return 2;
  }
  // `cairn <command> --help` (or -h, before any `--`): that command's part of the help.
  const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (options.includes('--help') || options.includes('-h')) {
    process.stdout.write(`${commandHelp(name) ?? HELP}\n`);
    return 0;
  }
  try {
    const command = await load();
    return await command(nodePlatform(), rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`cairn ${name}: ${error.message}\n`);
      return 2;
    }
    if (error instanceof Failure) {
      process.stderr.write(`cairn ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

// A closed pipe (`cairn show … | head`) ends the output quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
