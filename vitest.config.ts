import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { checksModule } from './packages/web/checks-plugin.mjs';

const CHECKS = 'virtual:cairn-checks';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources, in tests as in the type check.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  // The page's compiled contract checks, as its build provides them, for tests of its code in Node.
  plugins: [
    {
      name: 'cairn-checks',
      resolveId: (id: string) => (id === CHECKS ? `\0${CHECKS}` : undefined),
      load: (id: string) => (id === `\0${CHECKS}` ? checksModule() : undefined),
    },
  ],
  test: {
    reporters: ['default', './scripts/plain-summary-reporter.ts'],
    include: ['packages/*/test/**/*.test.ts'],
    globalSetup: ['./scripts/test-scratch.ts'],
    // Most files spend their time waiting on other processes (agents, daemons, Chromium), so two
    // run side by side even on two cores, where vitest would otherwise run one at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A condition polled for (a row drawn, a view landed) may take seconds on a loaded machine; the
    // one-second default failed such waits while what they wait for was still on its way.
    expect: { poll: { timeout: 15_000 } },
  },
});
