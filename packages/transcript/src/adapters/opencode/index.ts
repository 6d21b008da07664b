// The OpenCode adapter: the SQLite store `opencode.db` (and channel builds' `opencode-<channel>.db`)
// under `$XDG_DATA_HOME/opencode`, and the older JSON tree `storage/` beside it.
import { openCodeFamilyAdapter } from './adapter.js';

export const openCodeAdapter = openCodeFamilyAdapter({
  id: 'opencode',
  aliases: ['open-code'],
  name: 'opencode',
  // ccusage reads the same variable (a comma-separated list of data folders).
  dataDirVariables: ['OPENCODE_DATA_DIR'],
});
