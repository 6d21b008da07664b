// A search worker whose search for "stall" never ends, as a search over a huge index may not:
// its thread waits until it is ended. Every other search is the built worker's own.
import search, { checkPages } from '../../../cli/dist/search-worker.js';

export { checkPages };

export default function stallingSearch(task) {
  if (task.statement.params[0] !== '"stall"') return search(task);
  const cell = new Int32Array(new SharedArrayBuffer(4));
  // Short waits, so that ending the thread never waits on one.
  for (;;) Atomics.wait(cell, 0, 0, 50);
}
