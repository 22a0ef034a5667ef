import { platformTestConfig } from '../../vitest.shared.js';

export default platformTestConfig({ globalSetup: ['./src/global-setup.ts'] });
