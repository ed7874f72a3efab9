// `npm run mutate -- stryker.emulator.config.mjs`: stryker.config.json narrowed to the emulator's RBAC and admission
// webhooks, with only the emulator's own tests in the run (test/emulator: the webhooks' rule tables taken from
// upstream's tests, the authorizer's, kubectl against the emulator). The provider's integration tests reach the same
// code, but every request passes the authorizer, so each surviving RBAC mutant would re-run the whole integration
// suite; the emulator's tests are what pin it. Leaving tests out can only lower a score. Its own incremental file.
import { createRequire } from 'node:module';

const base = createRequire(import.meta.url)('./stryker.config.json');

export default {
  ...base,
  mutate: ['emulator/rbac/**/*.ts', 'emulator/webhooks/**/*.ts', '!**/*.d.ts'],
  mochaOptions: { ...base.mochaOptions, spec: ['dist/test/emulator/**/*.test.js'] },
  incrementalFile: 'reports/stryker-incremental-emulator.json',
};
