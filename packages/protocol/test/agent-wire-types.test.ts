// The written-out frame types are exactly what the frame table accepts (checked by the type checker).
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AGENT_BACKFILL_EVENT,
  AGENT_INFO,
  AGENT_RESUME_SESSION,
  AgentBackfillEvent,
  AgentFrame,
  AgentFrameMap,
  AgentFrameType,
  AgentInfo,
  AgentResumeSession,
  AUTH_METHOD_INFO,
  AuthMethodInfo,
  AVAILABLE_COMMAND,
  AvailableCommand,
  BOOLEAN_CONFIG_OPTION,
  BooleanConfigOption,
  BRIDGE_INFO,
  BridgeInfo,
  CONFIG_OPTION_VALUE,
  ConfigOptionValue,
  IMAGE_BLOCK,
  ImageBlock,
  Infer,
  InferAgentFrame,
  NATIVE_SESSION,
  NativeSession,
  PINNED_VERSION_UNAVAILABLE,
  PinnedVersionUnavailable,
  SELECT_CONFIG_OPTION,
  SELECT_GROUP,
  SELECT_OPTION,
  SESSION_CONFIG_OPTION,
  SelectConfigOption,
  SelectGroup,
  SelectOption,
  SessionConfigOption,
  STEER_OUTCOME,
  SteerOutcome,
} from '../src/index.js';

describe('the agent frame types', () => {
  it('equal, frame type by frame type, the types the frame table accepts', () => {
    expectTypeOf<AgentFrameMap>().toEqualTypeOf<{ [T in AgentFrameType]: InferAgentFrame<T> }>();
    expectTypeOf<AgentFrame['t']>().toEqualTypeOf<AgentFrameType>();
  });

  it('equal the nested guards', () => {
    expectTypeOf<BridgeInfo>().toEqualTypeOf<Infer<typeof BRIDGE_INFO>>();
    expectTypeOf<AuthMethodInfo>().toEqualTypeOf<Infer<typeof AUTH_METHOD_INFO>>();
    expectTypeOf<ImageBlock>().toEqualTypeOf<Infer<typeof IMAGE_BLOCK>>();
    expectTypeOf<AgentInfo>().toEqualTypeOf<Infer<typeof AGENT_INFO>>();
    expectTypeOf<SelectOption>().toEqualTypeOf<Infer<typeof SELECT_OPTION>>();
    expectTypeOf<SelectGroup>().toEqualTypeOf<Infer<typeof SELECT_GROUP>>();
    expectTypeOf<SelectConfigOption>().toEqualTypeOf<Infer<typeof SELECT_CONFIG_OPTION>>();
    expectTypeOf<BooleanConfigOption>().toEqualTypeOf<Infer<typeof BOOLEAN_CONFIG_OPTION>>();
    expectTypeOf<SessionConfigOption>().toEqualTypeOf<Infer<typeof SESSION_CONFIG_OPTION>>();
    expectTypeOf<ConfigOptionValue>().toEqualTypeOf<Infer<typeof CONFIG_OPTION_VALUE>>();
    expectTypeOf<AgentResumeSession>().toEqualTypeOf<Infer<typeof AGENT_RESUME_SESSION>>();
    expectTypeOf<NativeSession>().toEqualTypeOf<Infer<typeof NATIVE_SESSION>>();
    expectTypeOf<AvailableCommand>().toEqualTypeOf<Infer<typeof AVAILABLE_COMMAND>>();
    expectTypeOf<AgentBackfillEvent>().toEqualTypeOf<Infer<typeof AGENT_BACKFILL_EVENT>>();
    expectTypeOf<PinnedVersionUnavailable>().toEqualTypeOf<Infer<typeof PINNED_VERSION_UNAVAILABLE>>();
    expectTypeOf<SteerOutcome>().toEqualTypeOf<Infer<typeof STEER_OUTCOME>>();
  });
});
