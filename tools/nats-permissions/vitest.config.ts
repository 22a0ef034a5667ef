import { platformTestConfig } from '../../vitest.shared.js';

export default platformTestConfig({ testTimeoutMs: 60_000 });
