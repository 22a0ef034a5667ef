import { platformTestConfig } from '../../vitest.shared.js';

// One suite boots the platform's services as processes from their built output and drives every
// operation of the OpenAPI document with generated hostile input.
export default platformTestConfig({ sharedInfra: true, testTimeoutMs: 240_000 });
