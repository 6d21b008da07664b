// What a command reads from its standard input: piped text, or a secret typed without echo.

/** Everything piped to standard input, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A line typed on the terminal without showing it (an API key); undefined when Ctrl-C or
 * Ctrl-D abandons it. The terminal is raw while asking, so the characters are never echoed.
 */
export function askHidden(question: string): Promise<string | undefined> {
  const input = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve) => {
    let typed = '';
    const done = (finish: () => void) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      finish();
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(typed));
        if (ch === '\u0003' || ch === '\u0004') return done(() => resolve(undefined));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}
