#!/usr/bin/env node
// The CLI is bundled by `npm run build` (run on install); this file only loads it.
import('../packages/cli/dist/main.js');
