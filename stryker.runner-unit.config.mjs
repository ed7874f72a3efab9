// `npm run mutate -- stryker.runner-unit.config.mjs`: the runner's mutants against its unit tests alone
// (test/unit/runner: the runner's logic over fake hosts, in milliseconds), so a run takes minutes, not hours.
// Plus the tests over a provider of their own that needs no cluster: the dynamic-provider host's driver
// (test/engine/dynamic-host-driver: one host, calls in milliseconds) and runOperation over a one-resource program
// (test/engine/runner-operations: a program and a host per run, seconds each; runner-command-line: the same through
// the command line), and stand-in hosts and programs
// (test/engine/dynamic-host-start, runner-program: how they are started and stopped). The score is a lower bound of
// stryker.runner.config.mjs's, which adds the runner tests over the real resources and the emulator.
// Its own incremental file (docs/testing.md).
import runner from './stryker.runner.config.mjs';

export default {
  ...runner,
  mochaOptions: { ...runner.mochaOptions, spec: ['dist/test/unit/runner/**/*.test.js', 'dist/test/engine/dynamic-host-driver.test.js', 'dist/test/engine/runner-operations.test.js', 'dist/test/engine/runner-command-line.test.js', 'dist/test/engine/dynamic-host-start.test.js', 'dist/test/engine/runner-program.test.js'] },
  incrementalFile: 'reports/stryker-incremental-runner-unit.json',
};
