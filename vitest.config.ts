import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources, in tests as in the type check.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    reporters: ['default', './scripts/plain-summary-reporter.ts'],
    include: ['packages/*/test/**/*.test.ts'],
    globalSetup: ['./scripts/test-scratch.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
