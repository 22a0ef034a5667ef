import { platformTestConfig } from '../../vitest.shared.js';

// Rendering an overlay runs `kubectl kustomize` and importing every app's config module takes a
// while on a loaded machine.
export default platformTestConfig({ testTimeoutMs: 120_000 });
