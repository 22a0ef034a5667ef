import { platformTestConfig } from '../../vitest.shared.js';

export default platformTestConfig({ sharedInfra: true, postgresWithoutPgvector: true });
