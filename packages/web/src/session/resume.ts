// Where a session stream resumes after a reconnect: right after the last seq the client saw.

/**
 * The last seq seen once `frame` is taken in. A history (`transcript_ready`, `transcript_ready_start`)
 * sets it outright: it starts the numbering the client resumes in (past every earlier seq when a file
 * was replaced, from 0 again when the server restarted), and an empty session's history says -1, which
 * must stay -1 so that the resumed stream still sends event 0. Other frames only move it on.
 */
export function lastSeqAfter(last: number | undefined, frame: { type: string; seq: number }): number {
  if (frame.type === 'transcript_ready' || frame.type === 'transcript_ready_start') return frame.seq;
  return last === undefined ? frame.seq : Math.max(last, frame.seq);
}
