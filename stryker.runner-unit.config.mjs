// `npm run mutate -- stryker.runner-unit.config.mjs`: the runner's mutants against its unit tests alone
// (test/unit/runner: the runner's logic over fake hosts, in milliseconds), so a run takes minutes, not hours.
// Plus the driver of the dynamic-provider host against a tiny provider of its own (test/engine/dynamic-host-driver:
// one host, calls in milliseconds). The score is a lower bound of stryker.runner.config.mjs's: the runner tests
// that start a program and a host per test are left out, so the code only they reach (operations.ts, program.ts's
// spawn) shows as uncovered here. Its own incremental file (docs/testing.md).
import runner from './stryker.runner.config.mjs';

export default {
  ...runner,
  mochaOptions: { ...runner.mochaOptions, spec: ['dist/test/unit/runner/**/*.test.js', 'dist/test/engine/dynamic-host-driver.test.js'] },
  incrementalFile: 'reports/stryker-incremental-runner-unit.json',
};
