// Every version floor, for peers at versions 1 through 14, against the floors as the wire defines
// them: gates refuse before sending, "worth the bytes" floors strip, orphans are withheld.
import { describe, expect, it } from 'vitest';
import * as protocol from '../src/index.js';
import {
  AGENT_FRAME_FIXTURES,
  AGENT_FRAME_TYPES,
  AGENT_WIRE_FLOORS,
  AGENT_WIRE_MIN_VERSION,
  AGENT_WIRE_VERSION,
  type AgentFrame,
  type AgentFrameType,
  type AgentOpenedFrame,
  acceptedSteeringTimings,
  agentFrameTypeAllowed,
  fitAgentFrameToPeer,
  negotiateAgentWire,
  outboundAgentFrameRejection,
  readReloaded,
} from '../src/index.js';

const VERSIONS = Array.from({ length: 14 }, (_, i) => i + 1);

/** The version below which each frame type is never sent. */
const FRAME_GATES: Partial<Record<AgentFrameType, number>> = {
  agent_session_lost: 2,
  agent_verify: 4,
  agent_verified: 4,
  agent_authenticate: 4,
  agent_authenticated: 4,
  agent_install: 5,
  agent_installed: 5,
  agent_steer: 6,
  agent_steered: 6,
  agent_resume_offer: 7,
  agent_set_config_option: 9,
  agent_config_option_set: 9,
  agent_auth_url: 11,
  agent_auth_url_done: 11,
};

/** Keys that make the sample frame refused below a version, beyond its frame gate. */
const KEY_GATES: Partial<Record<AgentFrameType, number>> = {
  // The sample is a pending acknowledgement, which below v11 has no meaning.
  agent_authenticated: 11,
  // The sample carries images and a priority.
  agent_steer: 14,
};

/** Keys stripped below a version. */
const STRIPPED: Partial<Record<AgentFrameType, Record<string, number>>> = {
  heartbeat: { sessions: 8 },
  agent_opened: { configOptions: 9, authMethods: 12, errorCode: 12, reloaded: 13 },
  agent_verified: { configOptions: 9 },
  agent_turn_done: { authMethods: 12, errorCode: 12 },
};

const ORPHAN_OFFER = 10;

function sample<T extends AgentFrameType>(type: T): AgentFrame {
  return structuredClone(AGENT_FRAME_FIXTURES[type]) as AgentFrame;
}

describe('the floor table', () => {
  it('lists every floor constant once, in version order, at its constant', () => {
    const constants = Object.entries(protocol).filter(
      ([name]) => /^AGENT_WIRE_[A-Z_]+_VERSION$/.test(name) && name !== 'AGENT_WIRE_MIN_VERSION',
    );
    expect(AGENT_WIRE_FLOORS.map((floor) => floor.constant).sort()).toEqual(
      constants.map(([name]) => name).sort(),
    );
    for (const floor of AGENT_WIRE_FLOORS) {
      expect((protocol as Record<string, unknown>)[floor.constant]).toBe(floor.version);
    }
    const versions = AGENT_WIRE_FLOORS.map((floor) => floor.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(AGENT_WIRE_VERSION).toBe(14);
    expect(AGENT_WIRE_MIN_VERSION).toBe(1);
  });

  it('says of each floor whether it gates or only saves bytes', () => {
    const kinds = Object.fromEntries(AGENT_WIRE_FLOORS.map((floor) => [floor.constant, floor.kind]));
    expect(kinds).toEqual({
      AGENT_WIRE_SESSION_LOST_VERSION: 'gate',
      AGENT_WIRE_ADOPTION_VERSION: 'marker',
      AGENT_WIRE_AUTH_VERSION: 'gate',
      AGENT_WIRE_INSTALL_VERSION: 'gate',
      AGENT_WIRE_STEER_VERSION: 'gate',
      AGENT_WIRE_RESUME_OFFER_VERSION: 'gate',
      AGENT_WIRE_HEARTBEAT_INVENTORY_VERSION: 'worth_the_bytes',
      AGENT_WIRE_CONFIG_OPTIONS_VERSION: 'gate',
      AGENT_WIRE_ORPHAN_OFFER_VERSION: 'gate',
      AGENT_WIRE_AUTH_URL_VERSION: 'gate',
      AGENT_WIRE_SESSION_AUTH_METHODS_VERSION: 'worth_the_bytes',
      AGENT_WIRE_RELOADED_VERSION: 'worth_the_bytes',
      AGENT_WIRE_STEER_BLOCKS_VERSION: 'gate',
    });
    for (const floor of AGENT_WIRE_FLOORS) {
      // A byte-saving floor never refuses anything.
      if (floor.kind === 'worth_the_bytes')
        expect(floor.rules.every((rule) => rule.action === 'strip_key')).toBe(true);
      expect(floor.meaning.length).toBeGreaterThan(10);
    }
  });
});

describe.each(VERSIONS)('a peer at agent wire %i', (version) => {
  it.each(AGENT_FRAME_TYPES)('%s: refused, stripped or sent whole as the floors say', (type) => {
    const frame = sample(type);
    const before = structuredClone(frame);
    const fit = fitAgentFrameToPeer(frame, version);
    expect(frame, 'the frame passed in is not changed').toEqual(before);

    const gate = Math.max(FRAME_GATES[type] ?? 0, KEY_GATES[type] ?? 0);
    expect(agentFrameTypeAllowed(type, version)).toBe(version >= (FRAME_GATES[type] ?? 0));
    if (version < gate) {
      expect(fit.ok).toBe(false);
      if (!fit.ok) expect(fit.reason).toMatch(new RegExp(`^${type}(\\.\\w+)? needs agent wire \\d+`));
      return;
    }
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    const sent = fit.frame as unknown as Record<string, unknown>;
    const expected = structuredClone(before) as unknown as Record<string, unknown>;
    const stripped: string[] = [];
    for (const [key, floor] of Object.entries(STRIPPED[type] ?? {})) {
      if (version < floor) {
        delete expected[key];
        stripped.push(`${type}.${key}`);
      }
    }
    if (
      (type === 'agent_resume_offer' || type === 'heartbeat') &&
      version < ORPHAN_OFFER &&
      expected.sessions
    ) {
      expected.sessions = (expected.sessions as { agentAlive: boolean }[]).filter(
        (entry) => entry.agentAlive,
      );
    }
    expect(sent).toEqual(expected);
    for (const key of stripped) expect(fit.stripped).toContain(key);
    expect(outboundAgentFrameRejection(fit.frame)).toBeNull();
  });

  it('reads a missing reloaded as unknown below v13, as not reloaded from v13', () => {
    const opened: AgentOpenedFrame = { t: 'agent_opened', id: 'o', ok: true };
    expect(readReloaded({ ...opened, reloaded: true }, version)).toBe('reloaded');
    expect(readReloaded(opened, version)).toBe(version < 13 ? 'unknown' : 'not_reloaded');
  });

  it('sends a text-only steer from v6; one with images, even none, only from v14', () => {
    const steer = { t: 'agent_steer', id: 's', sessionRef: 'r', text: 'also this' } as const;
    expect(fitAgentFrameToPeer(steer, version).ok).toBe(version >= 6);
    const empty = fitAgentFrameToPeer({ ...steer, images: [] }, version);
    expect(empty.ok).toBe(version >= 14);
    if (empty.ok) expect(empty.frame).toEqual({ ...steer, images: [] });
    if (!empty.ok && version >= 6) {
      expect(empty.reason).toBe(
        `agent_steer.images needs agent wire 14 (AGENT_WIRE_STEER_BLOCKS_VERSION); the peer speaks ${version}`,
      );
    }
    const priority = fitAgentFrameToPeer({ ...steer, priority: 'immediate' }, version);
    expect(priority.ok).toBe(version >= 14);
  });

  it('sends a final sign-in reply from v4, a pending one from v11', () => {
    const reply = { t: 'agent_authenticated', id: 'a', ok: true } as const;
    expect(fitAgentFrameToPeer(reply, version).ok).toBe(version >= 4);
    expect(fitAgentFrameToPeer({ ...reply, pending: true }, version).ok).toBe(version >= 11);
  });

  it('accepts steering timings only from v14', () => {
    expect(
      acceptedSteeringTimings(
        { t: 'agent_opened', id: 'o', ok: true, steeringTimings: ['immediate'] },
        version,
      ),
    ).toEqual(version >= 14 ? ['immediate'] : []);
  });

  it('negotiates the lower of the two versions', () => {
    expect(negotiateAgentWire(version)).toEqual({ ok: true, version });
  });
});

describe('negotiation', () => {
  it('speaks its own version with a newer peer, and refuses a peer below the oldest or a malformed version', () => {
    expect(negotiateAgentWire(15)).toEqual({ ok: true, version: 14 });
    expect(fitAgentFrameToPeer(sample('agent_opened'), 99)).toEqual({
      ok: true,
      frame: AGENT_FRAME_FIXTURES.agent_opened,
      stripped: [],
    });
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '14', null]) {
      const negotiation = negotiateAgentWire(bad);
      expect(negotiation.ok, String(bad)).toBe(false);
      expect(fitAgentFrameToPeer(sample('heartbeat'), bad as number).ok).toBe(false);
    }
  });
});
