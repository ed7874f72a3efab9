// `npm run mutate -- stryker.runner-unit.config.mjs`: the runner's mutants against its unit tests alone
// (test/unit/runner: the runner's logic over fake hosts, in milliseconds), so a run takes minutes, not hours.
// The score is a lower bound of stryker.runner.config.mjs's: the runner tests that start a program and a host are
// left out, so the code only they reach (starting processes: operations.ts, program.ts, dynamic-host.ts) shows as
// uncovered here. Its own incremental file (docs/testing.md).
import runner from './stryker.runner.config.mjs';

export default {
  ...runner,
  mochaOptions: { ...runner.mochaOptions, spec: ['dist/test/unit/runner/**/*.test.js'] },
  incrementalFile: 'reports/stryker-incremental-runner-unit.json',
};
