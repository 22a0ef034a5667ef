import { platformTestConfig } from '../../vitest.shared.js';

// Only the durable peers' smoke test (`npx nx run bench-peers:smoke`); like the bench itself it is
// not part of `npm test` (the project has no `test` target).
export default platformTestConfig({ testTimeoutMs: 120_000, include: ['src/**/*.smoke.test.ts'] });
