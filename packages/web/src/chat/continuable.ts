// Which agents' sessions on disk offer Continue in the web UI.

/**
 * The agents whose sessions on disk can be continued in a chat: every driven agent whose sessions
 * cairn reads and whose ACP side loads a past session (`session/load`) by the id cairn lists it under.
 */
export const CONTINUABLE = new Set([
  'claude-code',
  'codex',
  'gemini-cli',
  'opencode',
  'qwen-code',
  'kilo',
  'pi',
  'copilot-cli',
]);
