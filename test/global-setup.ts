// Runs once per test run, before any test file (vitest.config.ts `globalSetup`): compiles the checkout, only when
// `.test-run/` has no build of the current sources (test/fixtures/run-cache.ts), and hands its path to the test
// files (`inject('testBuild')`).
import type { TestProject } from 'vitest/node';
import { ensureBuild } from './fixtures/run-cache.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The compiled checkout: `<testBuild>/api/supervisor.js`, `<testBuild>/tokenizer/main.js`. */
    testBuild: string;
  }
}

export default function setup(project: TestProject): void {
  project.provide('testBuild', ensureBuild());
}
