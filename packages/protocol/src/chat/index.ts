// The chat wire (server ↔ browser, spectral's `ServerEvent` / `ClientMessage` with cairn's additions):
// its frames, rows and HTTP bodies as schemas, and the checks both ends run. `RunPhase`,
// `WireRunState` and `StopReason` are the reader's session stream's, which has the same shapes; the
// message row is `WireMessage` (the session stream's narrower row is `StreamMessageRow`).
export * from './agent-wire-shapes.js';
export * from './cairn-extensions.js';
export * from './client-messages.js';
export * from './composer.js';
export * from './dev-processes.js';
export * from './drive-events.js';
export * from './http.js';
export * from './images.js';
export * from './memory.js';
export * from './messages.js';
export * from './permission-rule-frames.js';
export * from './projects.js';
export * from './queue.js';
export * from './server-events.js';
export * from './session-manage.js';
export * from './session-ready.js';
export * from './turn-events.js';
export * from './validate.js';
