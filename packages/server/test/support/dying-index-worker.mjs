// An index worker that dies on one Codex session of the corpus, as a worker out of memory does (an
// error the thread cannot catch), and prepares every other session with the daemon's own worker.
import prepare from '../../../cli/dist/index-worker.js';

const DIES_ON = '019c8a70-dda7-7f33-98ea-f30553347322';

export default function dyingPrepare(task) {
  if (!task.job.path.includes(DIES_ON)) return prepare(task);
  return new Promise(() => {
    setTimeout(() => {
      throw new Error('worker ran out of memory (simulated)');
    });
  });
}
