import { defineConfig } from 'vitest/config';

// Projects: unit (no daemons, no listening), integration (real servers on port 0 inside the test process, no child
// process and no sandbox: files run in parallel), conformance (one suite per sandbox backend), e2e (child processes,
// sandboxes, browsers: one file at a time). Docker and isolate tests skip loudly on a laptop without them; under
// CI=true a missing backend fails instead. `npm run test:fast` is the inner loop: typecheck + unit.
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'conformance', include: ['test/conformance/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
