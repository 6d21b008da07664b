// The tests' scratch folders (homes, daemon state, browser profiles) go under one folder per run,
// removed when the run ends: a run makes hundreds of them, over a GB in all.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-test-run-'));
  // Others may pass through it, not list it: a test that drops root to check file permissions
  // reaches the home it made inside.
  chmodSync(dir, 0o711);
  // os.tmpdir() reads TMPDIR on each call, here and in the workers and children started after.
  process.env.TMPDIR = dir;
  // The run's own folder, for what the test files may build once and share (the web UI).
  process.env.CAIRN_TEST_RUN = dir;
  return () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
