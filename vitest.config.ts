import { defineConfig } from 'vitest/config';

// Projects: unit (no daemons), conformance (one suite per sandbox backend), e2e (real servers and clients).
// Docker and isolate tests skip loudly on a laptop without them; under CI=true a missing backend fails instead.
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'conformance', include: ['test/conformance/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], fileParallelism: false } },
    ],
  },
});
