/**
 * mocha's spec reporter plus one plain closing line, `N passed, N failed, N skipped`, that CI systems which do
 * not parse mocha's own summary can read. Used by `npm test`.
 */
import Mocha from 'mocha';

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats ?? { passes: 0, failures: 0, pending: 0 };
      process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

export = SummaryReporter;
