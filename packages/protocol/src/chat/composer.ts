// cairn's frames and bodies for the composer's helpers: the slash commands the agent announced, the
// files of the chat's project folder that `@` completes, and the files a prompt carries along.
import { type Static, Type } from '@sinclair/typebox';
import { frame, Id } from './fields.js';

/** cairn's: one slash command the agent announced (ACP `available_commands_update`). */
export const ChatCommand = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    description: Type.String(),
    /** What to type after the command, when the agent says. */
    inputHint: Type.Optional(Type.String()),
  },
  { $id: 'ChatCommand' },
);
export type ChatCommand = Static<typeof ChatCommand>;

/** cairn's: the agent's slash commands as it now states them, whole. */
export const AvailableCommandsEvent = frame(
  'available_commands',
  { commands: Type.Array(ChatCommand) },
  'AvailableCommandsEvent',
);
export type AvailableCommandsEvent = Static<typeof AvailableCommandsEvent>;

/** The most project files one `@` completion lists. */
export const MAX_PROJECT_FILES = 50;

/** The most files one prompt carries. */
export const MAX_PROMPT_FILES = 20;

/** A file of the project, as its path relative to the project folder with `/` between parts. */
export const ProjectFilePath = Type.String({ minLength: 1, maxLength: 4096 });

/** `GET /api/sessions/files?session=…&query=…`: the project files whose path holds the query. */
export const ChatFilesQuery = Type.Object(
  {
    session: Id,
    /** Matched against the relative path, case-insensitively; all files when empty. */
    query: Type.Optional(Type.String({ maxLength: 4096 })),
  },
  { $id: 'ChatFilesQuery' },
);
export type ChatFilesQuery = Static<typeof ChatFilesQuery>;

export const ChatFilesResponse = Type.Object(
  {
    /** Relative paths, best match first, at most {@link MAX_PROJECT_FILES}. */
    files: Type.Array(ProjectFilePath),
    /** More files matched than were listed. */
    truncated: Type.Boolean(),
  },
  { $id: 'ChatFilesResponse' },
);
export type ChatFilesResponse = Static<typeof ChatFilesResponse>;

/** cairn's field of `user_message`: project files to hand the agent with the prompt. */
export const PromptFiles = Type.Array(ProjectFilePath, { maxItems: MAX_PROMPT_FILES });
