// The agent wire's version and the versions at which its features arrived. Each side announces
// its version and both speak the lower one; what each floor means is in floors.ts.

/** The version this package speaks. */
export const AGENT_WIRE_VERSION = 14;
/** The oldest version it still speaks. */
export const AGENT_WIRE_MIN_VERSION = 1;

/** `agent_session_lost`. */
export const AGENT_WIRE_SESSION_LOST_VERSION = 2;
/** Adoption of running sessions after a reconnect. No frame or key of the table is gated on it. */
export const AGENT_WIRE_ADOPTION_VERSION = 3;
/** On-demand probe and sign-in: `agent_verify` / `agent_verified`, `agent_authenticate` /
 * `agent_authenticated`. */
export const AGENT_WIRE_AUTH_VERSION = 4;
/** Adapter installation: `agent_install` / `agent_installed`. */
export const AGENT_WIRE_INSTALL_VERSION = 5;
/** Steering: `agent_steer` / `agent_steered`. */
export const AGENT_WIRE_STEER_VERSION = 6;
/** The journal inventory sent once per connection: `agent_resume_offer`. */
export const AGENT_WIRE_RESUME_OFFER_VERSION = 7;
/** The same inventory on every `heartbeat` (`heartbeat.sessions`). */
export const AGENT_WIRE_HEARTBEAT_INVENTORY_VERSION = 8;
/** Session config options: `agent_set_config_option` / `agent_config_option_set` and the
 * `configOptions` snapshots. */
export const AGENT_WIRE_CONFIG_OPTIONS_VERSION = 9;
/** Orphans (`agentAlive: false`) in the journal inventory. */
export const AGENT_WIRE_ORPHAN_OFFER_VERSION = 10;
/** Browser sign-in: `agent_auth_url` / `agent_auth_url_done` and `agent_authenticated.pending`. */
export const AGENT_WIRE_AUTH_URL_VERSION = 11;
/** `authMethods` and `errorCode` on the session path (`agent_opened`, `agent_turn_done`). */
export const AGENT_WIRE_SESSION_AUTH_METHODS_VERSION = 12;
/** `agent_opened.reloaded`. */
export const AGENT_WIRE_RELOADED_VERSION = 13;
/** `agent_steer.images` and `agent_steer.priority`. */
export const AGENT_WIRE_STEER_BLOCKS_VERSION = 14;
