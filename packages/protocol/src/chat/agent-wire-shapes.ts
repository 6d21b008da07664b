// The agent wire's shapes the browser wire passes on (an agent of the roster, a sign-in method, a
// config option), as schemas. The agent wire checks them with its own guards and names their types;
// these schemas accept the same values and their static types are those types (a type test holds
// the two together), so the browser wire is validated with the rest of its frame.
import { Type } from '@sinclair/typebox';
import { NullableString } from './fields.js';

const TrueOrAbsent = Type.Optional(Type.Literal(true));

/** The schema of the agent wire's `BridgeInfo`: one agent a workstation can run. */
export const BridgeInfoSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String(),
    cliInstalled: Type.Optional(Type.Boolean()),
    adapterInstalled: TrueOrAbsent,
    version: Type.Optional(NullableString),
    supportsSteering: TrueOrAbsent,
    supportsImageInput: TrueOrAbsent,
  },
  { $id: 'BridgeInfo' },
);

/** The schema of the agent wire's `AuthMethodInfo`: one way to sign the agent in. */
export const AuthMethodInfoSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.Optional(NullableString),
    type: Type.Optional(NullableString),
  },
  { $id: 'AuthMethodInfo' },
);

const SelectOptionSchema = Type.Object({
  value: Type.String(),
  name: Type.String(),
  description: Type.Optional(NullableString),
});

const SelectGroupSchema = Type.Object({
  group: Type.String(),
  name: Type.String(),
  options: Type.Array(SelectOptionSchema),
});

const CONFIG_OPTION_COMMON = {
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(NullableString),
  category: Type.Optional(NullableString),
};

/** The schema of the agent wire's `SessionConfigOption`: a select (all plain options or all groups)
 * or a boolean toggle, its `currentValue` typed to match. */
export const SessionConfigOptionSchema = Type.Union(
  [
    Type.Object({
      ...CONFIG_OPTION_COMMON,
      type: Type.Literal('select'),
      currentValue: Type.String(),
      options: Type.Union([Type.Array(SelectOptionSchema), Type.Array(SelectGroupSchema)]),
    }),
    Type.Object({
      ...CONFIG_OPTION_COMMON,
      type: Type.Literal('boolean'),
      currentValue: Type.Boolean(),
    }),
  ],
  { $id: 'SessionConfigOption' },
);
