// `npm run mutate -- stryker.provider.config.mjs --mutate '<globs>'`: stryker.config.json with only the tests that
// can reach provider code in this process (unit, client, integration, the chaos suite's bad inputs and fuzzing).
// The runner's tests and the emulator's are left out (but the emulator's rule tables, which build their objects with
// the provider's own plan code): the runner runs the provider in a dynamic-provider host of its own, and the emulator
// tests import no provider code, so they would only lengthen the dry run. Leaving tests out can only
// lower a score, never raise it. Its own incremental file (docs/testing.md).
import { createRequire } from 'node:module';

const base = createRequire(import.meta.url)('./stryker.config.json');

export default {
  ...base,
  mochaOptions: {
    ...base.mochaOptions,
    spec: [
      'dist/test/unit/**/*.test.js',
      'dist/test/client/**/*.test.js',
      'dist/test/integration/**/*.test.js',
      'dist/test/emulator/*-rules.test.js',
      'dist/test/chaos/bad-inputs.test.js',
      'dist/test/chaos/fuzz.test.js',
    ],
  },
  incrementalFile: 'reports/stryker-incremental-provider.json',
};
