// `npm run mutate -- stryker.runner.config.mjs`: stryker.config.json narrowed to the local runner. Its mutants are
// reached only by the unit and runner tests (each runner test runs the runner's command line in process and starts
// a program and a dynamic-provider host), so only those run: the dry run and every mutant skip the ~2,000 tests
// that cannot reach runner code. Its own incremental file, so runs over the rest keep theirs (docs/testing.md).
import { createRequire } from 'node:module';

const base = createRequire(import.meta.url)('./stryker.config.json');

export default {
  ...base,
  mutate: ['runner/**/*.ts', '!**/*.d.ts'],
  mochaOptions: { ...base.mochaOptions, spec: ['dist/test/unit/**/*.test.js', 'dist/test/runner/**/*.test.js', 'dist/test/engine/dynamic-host-driver.test.js', 'dist/test/engine/runner-operations.test.js', 'dist/test/engine/runner-command-line.test.js', 'dist/test/engine/dynamic-host-start.test.js', 'dist/test/engine/runner-program.test.js'] },
  incrementalFile: 'reports/stryker-incremental-runner.json',
};
