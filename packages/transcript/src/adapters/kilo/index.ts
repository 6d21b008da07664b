// The Kilo adapter: Kilo is a fork of OpenCode that keeps the same store (`kilo.db`, the same
// session, message and part tables) under `$XDG_DATA_HOME/kilo`.
import { openCodeFamilyAdapter } from '../opencode/adapter.js';

export const kiloAdapter = openCodeFamilyAdapter({
  id: 'kilo',
  aliases: ['kilocode', 'kilo-code'],
  name: 'kilo',
  // ccusage reads Kilo's store from the folder this variable names, so cairn does too.
  dataDirVariables: ['KILO_DATA_DIR'],
});
