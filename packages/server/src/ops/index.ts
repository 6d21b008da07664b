// The handler of every op in the protocol's table.
import type { OpName } from '@cairn/protocol';
import { hello, ping, shutdown } from './common.js';
import type { OpHandler } from './context.js';
import { sessionEnvRead, sessionForkOrigin, sessionKill, sessionLastLiveRemove } from './control.js';
import { dumpPresetsRead, sessionDumpWrite } from './dumps.js';
import { sessionHandoffPreview } from './handoff.js';
import { sessionLinksRead } from './links.js';
import { sessionMarksRead, sessionMarksWrite } from './marks.js';
import { sessionList, sessionSearch, sessionSummaryRead } from './sessions.js';
import { topicSubscribe, topicUnsubscribe } from './topics.js';
import { transcriptItemsRead, transcriptRead } from './transcript.js';
import { usageRead } from './usage.js';

export const OP_HANDLERS: { readonly [Op in OpName]: OpHandler<Op> } = {
  hello,
  ping,
  shutdown,
  topic_subscribe: topicSubscribe,
  topic_unsubscribe: topicUnsubscribe,
  session_list: sessionList,
  session_search: sessionSearch,
  session_marks_read: sessionMarksRead,
  session_marks_write: sessionMarksWrite,
  session_links_read: sessionLinksRead,
  session_handoff_preview: sessionHandoffPreview,
  usage_read: usageRead,
  session_summary_read: sessionSummaryRead,
  transcript_read: transcriptRead,
  transcript_items_read: transcriptItemsRead,
  session_dump_write: sessionDumpWrite,
  dump_presets_read: dumpPresetsRead,
  session_kill: sessionKill,
  session_env_read: sessionEnvRead,
  session_fork_origin: sessionForkOrigin,
  session_last_live_remove: sessionLastLiveRemove,
};
