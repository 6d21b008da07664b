// Item types in words a reader knows. The contract's names read from the subject's side
// (`message:user:out` is what the subject said to the person: the assistant's reply), which is
// exact but not what a person looks for; the name stays beside the label as secondary text.

const FIXED: Readonly<Record<string, string>> = {
  'message:user:in': 'Prompts',
  'message:user:out': 'Assistant replies',
  'message:parent:in': 'Messages from the parent agent',
  'message:parent:out': 'Messages to the parent agent',
  'message:sub:out': 'Subagent briefs',
  'message:sub:in': 'Subagent answers',
  'message:team:in': 'Messages from teammates',
  'message:team:out': 'Messages to teammates',
  'message:session:in': 'Messages from other sessions',
  'message:session:out': 'Messages to other sessions',
  thinking: 'Thinking',
  'notice:slash': 'Slash commands and their output',
  'notice:interrupt': 'Interruptions',
  'system:compact': 'Compactions',
  'system:api-error': 'API errors',
  'system:task': 'Background tasks',
  'system:caveat': 'Local command caveats',
  'system:resume': 'Workflow resumes',
  'system:unknown': 'Records of unknown kind',
};

/** A type as a reader names it in a list of kinds: `message:user:out` → "Assistant replies"; a
 * tool by its own name, since its count says "calls". */
export function typeLabel(type: string): string {
  const fixed = FIXED[type];
  if (fixed) return fixed;
  if (type.startsWith('tool:')) return type.slice('tool:'.length);
  if (type.startsWith('hook:')) return `${type.slice('hook:'.length)} hooks`;
  if (type.startsWith('system:attachment:')) return `Attachments: ${type.slice('system:attachment:'.length)}`;
  return type;
}

const ONE: Readonly<Record<string, string>> = {
  'message:user:in': 'Prompt',
  'message:user:out': 'Assistant reply',
  'message:sub:out': 'Subagent brief',
  'message:sub:in': 'Subagent answer',
  thinking: 'Thinking',
  'notice:slash': 'Slash command',
  'notice:interrupt': 'Interruption',
  'system:compact': 'Compaction',
  'system:api-error': 'API error',
  'system:task': 'Background task',
};

/** One item's type as a reader names it: `tool:Bash` → "Bash call". */
export function itemLabel(type: string): string {
  const one = ONE[type];
  if (one) return one;
  if (type.startsWith('tool:')) return `${type.slice('tool:'.length)} call`;
  if (type.startsWith('hook:')) return `${type.slice('hook:'.length)} hook`;
  return typeLabel(type);
}
