import { platformTestConfig } from '../../vitest.shared.js';

export default platformTestConfig({ sharedInfra: true, testTimeoutMs: 30_000 });
