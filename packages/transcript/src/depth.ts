// The depth bound lives with the contract, where the agent runner shares it; the library's own
// readers keep importing it from here. The original bytes stay readable through an event's source
// pointer.
export {
  boundDepth,
  DEEP_VALUE_PLACEHOLDER,
  MAX_VALUE_DEPTH,
  nestsDeeperThan,
  parseJson,
  tryStringify,
} from '@cairn/protocol';
