// The tests' scratch folders (homes, daemon state, browser profiles) go under one folder per run,
// removed when the run ends: a run makes hundreds of them, over a GB in all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-test-run-'));
  // os.tmpdir() reads TMPDIR on each call, here and in the workers and children started after.
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
