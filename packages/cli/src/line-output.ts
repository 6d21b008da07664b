// Lines to stdout a batch at a time: a long session's thousands of lines are never joined into one
// string, and a slow reader (a pager, a pipe) holds the writer back instead of the lines piling up.
import { once } from 'node:events';

/** Characters gathered before each write. */
const BATCH_CHARS = 256 * 1024;

export class LineOutput {
  private held: string[] = [];
  private chars = 0;

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {}

  /** Takes one line (without its newline); writes when a batch is full. */
  async line(text: string): Promise<void> {
    this.held.push(text, '\n');
    this.chars += text.length + 1;
    if (this.chars >= BATCH_CHARS) await this.flush();
  }

  /** Writes what is held and waits until the stream can take more. */
  async flush(): Promise<void> {
    if (this.held.length === 0) return;
    const text = this.held.join('');
    this.held = [];
    this.chars = 0;
    if (!this.out.write(text)) await once(this.out, 'drain');
  }
}
