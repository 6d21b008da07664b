// The contract's checkers, compiled when the web UI is built (see checks-plugin.mjs).
declare module 'virtual:cairn-checks' {
  type Check = (value: unknown) => boolean;
  export const responseChecks: Record<string, Check>;
  export const itemCheck: Check;
  export const sessionUpsertedCheck: Check;
  export const sessionRemovedCheck: Check;
  export const presenceCheck: Check;
  export const streamFrameCheck: Check;
  export const chatEventChecks: Record<string, Check>;
}
