// Test runner configuration: one project per kind of test (test/README.md says which goes where); `vitest run`
// runs them all, `vitest run --project unit` only the fast ones. Every file gets its own tenant schema or
// database, so files run in parallel.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    pool: 'forks',
    // Compiles the checkout and makes the PGlite template once per source hash (test/fixtures/run-cache.ts).
    globalSetup: ['./test/global-setup.ts'],
    // The default report, and at its end the tests skipped in this run with their names, which say why.
    reporters: ['default', './test/fixtures/skipped-reporter.ts'],
    maxWorkers: 2,
    // A promise rejected with nobody listening, or an exception nobody caught, fails the run (vitest's default,
    // stated here because test/e2e/unhandled-errors.test.ts proves it holds).
    dangerouslyIgnoreUnhandledErrors: false,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // The files of a worker share its loaded modules instead of each loading them anew (5-7 s a file): unit
          // tests keep no state between files (mocks, fake timers and spies are restored after each test).
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // A worker's files share its loaded modules (2-3 s of imports a file saved). Each file starts its own
          // vaults (database, keyring, tokenizer, api), and the api keeps its state in what startApi makes, not in
          // its modules: the whole project passed so on both databases.
          isolate: false,
          // The first test of a file also starts the file's vault (tokenizer process, database, migrations), which
          // on a busy machine with the embedded database takes a minute: room for that and the test's own 30 s.
          testTimeout: 120_000,
          hookTimeout: 90_000,
          // Work the api finishes after answering (object removal, sweeps) is polled for, with room for a busy machine.
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        extends: true,
        test: {
          name: 'operator',
          include: ['test/operator/**/*.test.ts'],
          // Each file starts its own API double and operator: they share a worker's modules, as integration does.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'chart',
          include: ['test/chart/**/*.test.ts'],
          // Files that only read the chart: they share a worker's loaded modules, as unit tests do.
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          // Each file launches its own browser and vault: they share a worker's modules, as integration does.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Each test sets its own deadlines from measured start times; this is only the ceiling.
          testTimeout: 600_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
