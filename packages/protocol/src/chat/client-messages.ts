// What the browser sends on a chat session's socket: a prompt (spectral's `user_message`), and cairn's
// controls beside it. One JSON document a frame.
import { type Static, Type } from '@sinclair/typebox';
import { CAIRN_CLIENT_MESSAGE_MEMBERS } from './cairn-extensions.js';
import { PromptFiles } from './composer.js';
import { frame, literals } from './fields.js';
import { ImageAttachment } from './images.js';

/** A prompt. Sent while the agent is busy, it is queued. With no content it can carry only a
 * `loopControl` for the interval scheduler. */
export const UserMessageClientMessage = frame(
  'user_message',
  {
    content: Type.String(),
    /** Run the prompt as a loop: again and again until the agent writes the done marker, or the cap. */
    loop: Type.Optional(Type.Boolean()),
    /** Hosted `url` preferred; inline base64 within the cap. */
    images: Type.Optional(Type.Array(ImageAttachment)),
    /** The loop's cap; the server holds it to its own maximum as well. */
    loopMaxIterations: Type.Optional(Type.Number()),
    /** What done means for the loop. */
    loopGoal: Type.Optional(Type.String()),
    /** Arm the interval scheduler: the prompt (or the loop) goes out now, then every so many minutes,
     * each time only if the session is idle. */
    intervalMinutes: Type.Optional(Type.Number()),
    /** The scheduler's controls: fire the next occurrence now (the cadence restarts from it), or disarm. */
    loopControl: Type.Optional(literals(['run_now', 'stop'])),
    /** cairn's: project files (relative to the project folder) handed to the agent with the prompt. */
    files: Type.Optional(PromptFiles),
  },
  'UserMessageClientMessage',
);
export type UserMessageClientMessage = Static<typeof UserMessageClientMessage>;

/** Every client message, spectral's first. */
export const CLIENT_MESSAGE_MEMBERS = [UserMessageClientMessage, ...CAIRN_CLIENT_MESSAGE_MEMBERS] as const;

export const ClientMessage = Type.Union([...CLIENT_MESSAGE_MEMBERS], { $id: 'ClientMessage' });
export type ClientMessage = Static<typeof ClientMessage>;
export type ClientMessageType = ClientMessage['type'];
