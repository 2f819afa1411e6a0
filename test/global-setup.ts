// Runs once per test run, before any test file (vitest.config.ts `globalSetup`): compiles the checkout and makes the
// PGlite template, each only when `.test-run/` has none for the current sources (test/fixtures/run-cache.ts), and
// hands their paths to the test files (`inject('testBuild')`, `inject('pgliteTemplate')`).
import type { TestProject } from 'vitest/node';
import { ensureBuild, ensurePgliteTemplate } from './fixtures/run-cache.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled checkout: `<testBuild>/api/supervisor.js`, `<testBuild>/tokenizer/main.js`. */
    testBuild: string;
    /** A PGlite data directory just after initdb, to copy into a new vault's `<dataDir>/pglite`. */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('testBuild', ensureBuild());
  project.provide('pgliteTemplate', await ensurePgliteTemplate());
}
