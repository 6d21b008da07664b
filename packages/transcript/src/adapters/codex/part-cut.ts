// Where a read in parts may cut a rollout. A user message's reading waits on the record after it
// (a user_message mirroring it makes it a prompt, else it is injected context), so a part that
// ended right after one would have the translation guess, and then read the lane again when the
// next part says otherwise.
import { bytesOf, indexOfBytes } from '../../bytes.js';

const RESPONSE_ITEM = bytesOf('"type":"response_item"');
const USER_ROLE = bytesOf('"role":"user"');
/** Codex writes the envelope and the message's role ahead of its content. */
const HEAD_BYTES = 256;

/** Whether the line looks like a response_item user message (a false yes only moves a cut). */
export function isUserMessageLine(line: Uint8Array): boolean {
  const head = line.subarray(0, HEAD_BYTES);
  return indexOfBytes(head, RESPONSE_ITEM) !== -1 && indexOfBytes(head, USER_ROLE) !== -1;
}
