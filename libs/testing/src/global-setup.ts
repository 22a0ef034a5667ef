// Vitest global setup: one set of private servers per test run, shared by every suite of the run.
// Use it from a project's vitest.config.ts: platformTestConfig({ globalSetup: ['@platform/testing/global-setup'] }).
import type { TestProject } from 'vitest/node';
import { startInfra } from './infra.js';
import './provided-context.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const infra = await startInfra();
  project.provide('platformInfra', infra.descriptor);
  return () => infra.stop();
}
