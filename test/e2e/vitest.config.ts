import { platformTestConfig } from '../../vitest.shared.js';

// Each suite boots the platform's services as separate processes from their built output.
export default platformTestConfig({ sharedInfra: true, testTimeoutMs: 120_000 });
