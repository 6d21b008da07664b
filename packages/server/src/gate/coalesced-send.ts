// Frames sent on a WebSocket in one turn of the event loop leave in one write. A live session, a
// chat's turn or a driven session's event log sends bursts of small frames (a batch of events read
// at once), and written one at a time each costs a system call: at thousands of frames a second
// those writes were the server's largest cost, more than making the frames.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/**
 * A send for `ws`, whose frames are held on `socket` (the one it was upgraded on) until the current
 * turn's work is done, then written together. Nothing waits longer than that turn.
 */
export function coalescedSend(ws: WebSocket, socket: Duplex): (data: string) => void {
  let corked = false;
  const flush = () => {
    corked = false;
    socket.uncork();
  };
  return (data) => {
    if (!corked && !socket.destroyed) {
      corked = true;
      socket.cork();
      process.nextTick(flush);
    }
    ws.send(data);
  };
}
