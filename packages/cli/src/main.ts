// The cairn command line.
import { nodePlatform } from '@cairn/transcript';
import { dumpCommand } from './commands/dump.js';
import { presetsCommand } from './commands/presets.js';
import { serveCommand } from './commands/serve.js';
import { sessionsCommand } from './commands/sessions.js';
import { showCommand } from './commands/show.js';
import { summaryCommand } from './commands/summary.js';
import { Failure, HELP, UsageError } from './usage.js';

type Command = (platform: ReturnType<typeof nodePlatform>, argv: string[]) => Promise<number>;

const commands: Record<string, Command> = {
  dump: dumpCommand,
  presets: presetsCommand,
  serve: serveCommand,
  sessions: sessionsCommand,
  show: showCommand,
  summary: summaryCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${HELP}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`cairn: unknown command '${name}'\n${HELP}\n`);
    return 2;
  }
  try {
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
