// The written-out frame types are exactly what the frame table accepts (checked by the type checker).
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AGENT_BACKFILL_EVENT_GUARD,
  AGENT_INFO_GUARD,
  AGENT_RESUME_SESSION_GUARD,
  AgentBackfillEvent,
  AgentFrame,
  AgentFrameMap,
  AgentFrameType,
  AgentInfo,
  AgentResumeSession,
  AUTH_METHOD_INFO_GUARD,
  AuthMethodInfo,
  AVAILABLE_COMMAND_GUARD,
  AvailableCommand,
  BOOLEAN_CONFIG_OPTION_GUARD,
  BooleanConfigOption,
  BRIDGE_INFO_GUARD,
  BridgeInfo,
  CONFIG_OPTION_VALUE_GUARD,
  ConfigOptionValue,
  IMAGE_BLOCK_GUARD,
  ImageBlock,
  InferAgentFrame,
  InferGuard,
  NATIVE_SESSION_GUARD,
  NativeSession,
  PINNED_VERSION_UNAVAILABLE_GUARD,
  PinnedVersionUnavailable,
  SELECT_CONFIG_OPTION_GUARD,
  SELECT_GROUP_GUARD,
  SELECT_OPTION_GUARD,
  SESSION_CONFIG_OPTION_GUARD,
  SelectConfigOption,
  SelectGroup,
  SelectOption,
  SessionConfigOption,
  STEER_OUTCOME_GUARD,
  SteerOutcome,
} from '../src/index.js';

describe('the agent frame types', () => {
  it('equal, frame type by frame type, the types the frame table accepts', () => {
    expectTypeOf<AgentFrameMap>().toEqualTypeOf<{ [T in AgentFrameType]: InferAgentFrame<T> }>();
    expectTypeOf<AgentFrame['t']>().toEqualTypeOf<AgentFrameType>();
  });

  it('equal the nested guards', () => {
    expectTypeOf<BridgeInfo>().toEqualTypeOf<InferGuard<typeof BRIDGE_INFO_GUARD>>();
    expectTypeOf<AuthMethodInfo>().toEqualTypeOf<InferGuard<typeof AUTH_METHOD_INFO_GUARD>>();
    expectTypeOf<ImageBlock>().toEqualTypeOf<InferGuard<typeof IMAGE_BLOCK_GUARD>>();
    expectTypeOf<AgentInfo>().toEqualTypeOf<InferGuard<typeof AGENT_INFO_GUARD>>();
    expectTypeOf<SelectOption>().toEqualTypeOf<InferGuard<typeof SELECT_OPTION_GUARD>>();
    expectTypeOf<SelectGroup>().toEqualTypeOf<InferGuard<typeof SELECT_GROUP_GUARD>>();
    expectTypeOf<SelectConfigOption>().toEqualTypeOf<InferGuard<typeof SELECT_CONFIG_OPTION_GUARD>>();
    expectTypeOf<BooleanConfigOption>().toEqualTypeOf<InferGuard<typeof BOOLEAN_CONFIG_OPTION_GUARD>>();
    expectTypeOf<SessionConfigOption>().toEqualTypeOf<InferGuard<typeof SESSION_CONFIG_OPTION_GUARD>>();
    expectTypeOf<ConfigOptionValue>().toEqualTypeOf<InferGuard<typeof CONFIG_OPTION_VALUE_GUARD>>();
    expectTypeOf<AgentResumeSession>().toEqualTypeOf<InferGuard<typeof AGENT_RESUME_SESSION_GUARD>>();
    expectTypeOf<NativeSession>().toEqualTypeOf<InferGuard<typeof NATIVE_SESSION_GUARD>>();
    expectTypeOf<AvailableCommand>().toEqualTypeOf<InferGuard<typeof AVAILABLE_COMMAND_GUARD>>();
    expectTypeOf<AgentBackfillEvent>().toEqualTypeOf<InferGuard<typeof AGENT_BACKFILL_EVENT_GUARD>>();
    expectTypeOf<PinnedVersionUnavailable>().toEqualTypeOf<
      InferGuard<typeof PINNED_VERSION_UNAVAILABLE_GUARD>
    >();
    expectTypeOf<SteerOutcome>().toEqualTypeOf<InferGuard<typeof STEER_OUTCOME_GUARD>>();
  });
});
