import { platformTestConfig } from '../../vitest.shared.js';

export default platformTestConfig();
