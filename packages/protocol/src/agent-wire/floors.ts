// What each version floor means for a frame about to go to a peer, as data, and the one function
// that applies it. There are two kinds of floor. A gate marks something a peer below it cannot
// take: a frame type it has no case for (it drops it and the requester waits out a timeout, or it
// fails to decode it, and enough of those close the channel), or a key that changes what the frame
// asks for; such frames are refused before they are sent. A "worth the bytes" floor marks an
// optional key an older peer ignores: below it the key is only overhead and is stripped.
import { isPlainObject } from './guards.js';
import { isAgentFrameType } from './shapes.js';
import type { AgentFrame, AgentFrameType, AgentOpenedFrame } from './types.js';
import {
  AGENT_WIRE_ADOPTION_VERSION,
  AGENT_WIRE_AUTH_URL_VERSION,
  AGENT_WIRE_AUTH_VERSION,
  AGENT_WIRE_CONFIG_OPTIONS_VERSION,
  AGENT_WIRE_HEARTBEAT_INVENTORY_VERSION,
  AGENT_WIRE_INSTALL_VERSION,
  AGENT_WIRE_MIN_VERSION,
  AGENT_WIRE_ORPHAN_OFFER_VERSION,
  AGENT_WIRE_RELOADED_VERSION,
  AGENT_WIRE_RESUME_OFFER_VERSION,
  AGENT_WIRE_SESSION_AUTH_METHODS_VERSION,
  AGENT_WIRE_SESSION_LOST_VERSION,
  AGENT_WIRE_STEER_BLOCKS_VERSION,
  AGENT_WIRE_STEER_VERSION,
  AGENT_WIRE_VERSION,
} from './versions.js';

/** What a floor does to a frame for a peer below it. */
export type AgentWireFloorRule =
  /** The frame type is never sent. */
  | { readonly action: 'refuse_frame'; readonly frame: AgentFrameType }
  /** The frame is never sent while this key is present, whatever it holds (an empty list included). */
  | { readonly action: 'refuse_key'; readonly frame: AgentFrameType; readonly key: string }
  /** The key is removed; the rest of the frame goes. */
  | { readonly action: 'strip_key'; readonly frame: AgentFrameType; readonly key: string }
  /** The entries of an array key for which `drop` holds are removed. */
  | {
      readonly action: 'filter_entries';
      readonly frame: AgentFrameType;
      readonly key: string;
      readonly drop: (entry: unknown) => boolean;
    };

export interface AgentWireFloor {
  /** The constant's name in this package. */
  readonly constant: string;
  readonly version: number;
  /** `gate`: the peer cannot take it. `worth_the_bytes`: the peer ignores it. `marker`: recorded
   * for the history of the wire, nothing to apply. */
  readonly kind: 'gate' | 'worth_the_bytes' | 'marker';
  readonly meaning: string;
  readonly rules: readonly AgentWireFloorRule[];
}

const isOrphan = (entry: unknown) => isPlainObject(entry) && entry.agentAlive === false;

export const AGENT_WIRE_FLOORS: readonly AgentWireFloor[] = [
  {
    constant: 'AGENT_WIRE_SESSION_LOST_VERSION',
    version: AGENT_WIRE_SESSION_LOST_VERSION,
    kind: 'gate',
    meaning: 'agent_session_lost: a peer below has no case for it',
    rules: [{ action: 'refuse_frame', frame: 'agent_session_lost' }],
  },
  {
    constant: 'AGENT_WIRE_ADOPTION_VERSION',
    version: AGENT_WIRE_ADOPTION_VERSION,
    kind: 'marker',
    meaning: 'adoption of running sessions after a reconnect; no frame or key depends on it',
    rules: [],
  },
  {
    constant: 'AGENT_WIRE_AUTH_VERSION',
    version: AGENT_WIRE_AUTH_VERSION,
    kind: 'gate',
    meaning: 'probe and sign-in requests and their replies',
    rules: [
      { action: 'refuse_frame', frame: 'agent_verify' },
      { action: 'refuse_frame', frame: 'agent_verified' },
      { action: 'refuse_frame', frame: 'agent_authenticate' },
      { action: 'refuse_frame', frame: 'agent_authenticated' },
    ],
  },
  {
    constant: 'AGENT_WIRE_INSTALL_VERSION',
    version: AGENT_WIRE_INSTALL_VERSION,
    kind: 'gate',
    meaning: 'adapter installation: a peer below would never answer, so the request is not sent',
    rules: [
      { action: 'refuse_frame', frame: 'agent_install' },
      { action: 'refuse_frame', frame: 'agent_installed' },
    ],
  },
  {
    constant: 'AGENT_WIRE_STEER_VERSION',
    version: AGENT_WIRE_STEER_VERSION,
    kind: 'gate',
    meaning: 'steering: a peer below drops the request and the requester waits out its timeout',
    rules: [
      { action: 'refuse_frame', frame: 'agent_steer' },
      { action: 'refuse_frame', frame: 'agent_steered' },
    ],
  },
  {
    constant: 'AGENT_WIRE_RESUME_OFFER_VERSION',
    version: AGENT_WIRE_RESUME_OFFER_VERSION,
    kind: 'gate',
    meaning: 'the journal inventory after a reconnect',
    rules: [{ action: 'refuse_frame', frame: 'agent_resume_offer' }],
  },
  {
    constant: 'AGENT_WIRE_HEARTBEAT_INVENTORY_VERSION',
    version: AGENT_WIRE_HEARTBEAT_INVENTORY_VERSION,
    kind: 'worth_the_bytes',
    meaning: 'the inventory on every heartbeat; a peer below ignores it, so it is not sent',
    rules: [{ action: 'strip_key', frame: 'heartbeat', key: 'sessions' }],
  },
  {
    constant: 'AGENT_WIRE_CONFIG_OPTIONS_VERSION',
    version: AGENT_WIRE_CONFIG_OPTIONS_VERSION,
    kind: 'gate',
    meaning:
      'setting a config option (a peer below has no case for the request); the option snapshots ' +
      'on replies it already decodes are stripped',
    rules: [
      { action: 'refuse_frame', frame: 'agent_set_config_option' },
      { action: 'refuse_frame', frame: 'agent_config_option_set' },
      { action: 'strip_key', frame: 'agent_opened', key: 'configOptions' },
      { action: 'strip_key', frame: 'agent_verified', key: 'configOptions' },
    ],
  },
  {
    constant: 'AGENT_WIRE_ORPHAN_OFFER_VERSION',
    version: AGENT_WIRE_ORPHAN_OFFER_VERSION,
    kind: 'gate',
    meaning:
      'orphans (agentAlive: false) in the inventory: a peer below ends a live turn because its ' +
      'session is missing, so an orphan entry would leave that turn running forever; they are withheld',
    rules: [
      { action: 'filter_entries', frame: 'agent_resume_offer', key: 'sessions', drop: isOrphan },
      { action: 'filter_entries', frame: 'heartbeat', key: 'sessions', drop: isOrphan },
    ],
  },
  {
    constant: 'AGENT_WIRE_AUTH_URL_VERSION',
    version: AGENT_WIRE_AUTH_URL_VERSION,
    kind: 'gate',
    meaning:
      'browser sign-in: a peer below cannot decode the frames, and enough undecodable frames close ' +
      'the channel; below it a sign-in has one reply, sent when the login is over, so a pending one is refused',
    rules: [
      { action: 'refuse_frame', frame: 'agent_auth_url' },
      { action: 'refuse_frame', frame: 'agent_auth_url_done' },
      { action: 'refuse_key', frame: 'agent_authenticated', key: 'pending' },
    ],
  },
  {
    constant: 'AGENT_WIRE_SESSION_AUTH_METHODS_VERSION',
    version: AGENT_WIRE_SESSION_AUTH_METHODS_VERSION,
    kind: 'worth_the_bytes',
    meaning: "the agent's auth methods and refusal code on the session path; a peer below ignores them",
    rules: [
      { action: 'strip_key', frame: 'agent_opened', key: 'authMethods' },
      { action: 'strip_key', frame: 'agent_opened', key: 'errorCode' },
      { action: 'strip_key', frame: 'agent_turn_done', key: 'authMethods' },
      { action: 'strip_key', frame: 'agent_turn_done', key: 'errorCode' },
    ],
  },
  {
    constant: 'AGENT_WIRE_RELOADED_VERSION',
    version: AGENT_WIRE_RELOADED_VERSION,
    kind: 'worth_the_bytes',
    meaning: 'whether an open really reloaded; below it a missing reloaded reads as unknown (readReloaded)',
    rules: [{ action: 'strip_key', frame: 'agent_opened', key: 'reloaded' }],
  },
  {
    constant: 'AGENT_WIRE_STEER_BLOCKS_VERSION',
    version: AGENT_WIRE_STEER_BLOCKS_VERSION,
    kind: 'gate',
    meaning:
      'a steer with images or a priority: a peer below would drop them and still answer injected, so ' +
      'such a steer is refused, an empty images list included; only a text-only steer goes out below it',
    rules: [
      { action: 'refuse_key', frame: 'agent_steer', key: 'images' },
      { action: 'refuse_key', frame: 'agent_steer', key: 'priority' },
    ],
  },
];

export type AgentWireNegotiation =
  | { readonly ok: true; readonly version: number }
  | { readonly ok: false; readonly reason: string };

/** The version both sides speak with a peer that announced `peerVersion`: the lower of the two. */
export function negotiateAgentWire(peerVersion: unknown): AgentWireNegotiation {
  if (typeof peerVersion !== 'number' || !Number.isSafeInteger(peerVersion)) {
    return {
      ok: false,
      reason: `the peer's agent wire version must be a whole number, got ${String(peerVersion)}`,
    };
  }
  if (peerVersion < AGENT_WIRE_MIN_VERSION) {
    return {
      ok: false,
      reason: `the peer speaks agent wire ${peerVersion}, below the oldest supported (${AGENT_WIRE_MIN_VERSION})`,
    };
  }
  return { ok: true, version: Math.min(peerVersion, AGENT_WIRE_VERSION) };
}

export type AgentFrameFit<F extends AgentFrame = AgentFrame> =
  | {
      readonly ok: true;
      readonly frame: F;
      /** What was taken out (`heartbeat.sessions`, `agent_resume_offer.sessions: 2 withheld (…)`). */
      readonly stripped: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/**
 * `frame` as it may be sent to a peer speaking `peerVersion` (the negotiated version): refused when a
 * gate forbids it, else with what a floor strips or filters taken out. The frame passed in is not
 * changed. Meant to run before a frame is emitted, never after.
 */
export function fitAgentFrameToPeer<F extends AgentFrame>(frame: F, peerVersion: number): AgentFrameFit<F> {
  const negotiated = negotiateAgentWire(peerVersion);
  if (!negotiated.ok) return negotiated;
  const version = negotiated.version;
  const type: unknown = frame.t;
  if (!isAgentFrameType(type)) return { ok: false, reason: `unknown agent frame type ${String(type)}` };
  const below = AGENT_WIRE_FLOORS.filter((floor) => version < floor.version);
  const record = frame as unknown as Record<string, unknown>;
  for (const floor of below) {
    for (const rule of floor.rules) {
      if (rule.frame !== type) continue;
      if (rule.action === 'refuse_frame') {
        return {
          ok: false,
          reason: `${type} needs agent wire ${floor.version} (${floor.constant}); the peer speaks ${version}`,
        };
      }
      if (rule.action === 'refuse_key') {
        const value = Object.hasOwn(record, rule.key) ? record[rule.key] : undefined;
        if (value !== undefined) {
          return {
            ok: false,
            reason: `${type}.${rule.key} needs agent wire ${floor.version} (${floor.constant}); the peer speaks ${version}`,
          };
        }
      }
    }
  }
  let out: Record<string, unknown> = record;
  const stripped: string[] = [];
  const copy = () => {
    if (out === record) out = { ...record };
    return out;
  };
  for (const floor of below) {
    for (const rule of floor.rules) {
      if (rule.frame !== type) continue;
      if (rule.action === 'strip_key' && Object.hasOwn(out, rule.key) && out[rule.key] !== undefined) {
        delete copy()[rule.key];
        stripped.push(`${type}.${rule.key}`);
      }
      if (rule.action === 'filter_entries') {
        const entries = out[rule.key];
        if (!Array.isArray(entries)) continue;
        const kept = entries.filter((entry) => !rule.drop(entry));
        if (kept.length === entries.length) continue;
        copy()[rule.key] = kept;
        stripped.push(`${type}.${rule.key}: ${entries.length - kept.length} withheld (${floor.constant})`);
      }
    }
  }
  return { ok: true, frame: out as unknown as F, stripped };
}

/** Whether a frame type may be sent at all to a peer speaking `peerVersion`. */
export function agentFrameTypeAllowed(type: AgentFrameType, peerVersion: number): boolean {
  return AGENT_WIRE_FLOORS.every(
    (floor) =>
      peerVersion >= floor.version ||
      !floor.rules.some((rule) => rule.action === 'refuse_frame' && rule.frame === type),
  );
}

export type ReloadedReading = 'reloaded' | 'not_reloaded' | 'unknown';

/**
 * What an `agent_opened` says about reloading, from a peer speaking `peerVersion`. A peer below
 * {@link AGENT_WIRE_RELOADED_VERSION} never sends the key, so its silence proves nothing: unknown,
 * and nothing may be settled on it. At or above, absence means the open did not reload.
 */
export function readReloaded(
  frame: Pick<AgentOpenedFrame, 'reloaded'>,
  peerVersion: number,
): ReloadedReading {
  if (frame.reloaded === true) return 'reloaded';
  return peerVersion >= AGENT_WIRE_RELOADED_VERSION ? 'not_reloaded' : 'unknown';
}

/**
 * The steering timings an `agent_opened` from a peer speaking `peerVersion` offers. Below
 * {@link AGENT_WIRE_STEER_BLOCKS_VERSION} a steer cannot carry a priority, so none is accepted and a
 * message meant to go with one waits in the queue, where it is delivered whole.
 */
export function acceptedSteeringTimings(frame: AgentOpenedFrame, peerVersion: number): readonly string[] {
  if (peerVersion < AGENT_WIRE_STEER_BLOCKS_VERSION) return [];
  return frame.steeringTimings ?? [];
}
