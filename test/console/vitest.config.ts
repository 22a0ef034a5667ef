import { platformTestConfig } from '../../vitest.shared.js';

// The console's browser tests: the platform's services as separate processes (built output), the
// console as the api serves it, and Debian's Chromium driven by playwright-core.
export default platformTestConfig({ sharedInfra: true, testTimeoutMs: 120_000 });
