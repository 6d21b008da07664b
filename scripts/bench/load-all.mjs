// Loads every session of every agent through the library, spread over worker threads,
// and prints the totals of events and skipped records. The sessions are found as `cairn summary
// --all` finds them, without the listing's reads of each file's head (titles, first prompts): the
// naive baseline it is set against lists no sessions either.
import { discoverSessions, nodePlatform, runInPool } from '../../packages/transcript/dist/index.js';

const platform = nodePlatform();
let sessions = 0;
// Handed to the pool as they are found, as `cairn summary --all` does: the workers start meanwhile.
async function* targets() {
  for await (const entry of discoverSessions(platform)) {
    if ('ref' in entry) continue;
    sessions++;
    yield { path: entry.path, agent: entry.agent, sessionId: entry.id };
  }
}
let events = 0;
let skipped = 0;
for (const r of await runInPool('load', targets(), { env: process.env })) {
  if (!r.ok) continue;
  events += r.value.events;
  skipped += r.value.skipped;
}
console.log(JSON.stringify({ sessions, events, skipped }));
