import type { orchestratorV1 } from '@platform/proto';

/** The built-in calculator as the orchestrator's ListTools describes it; tests override what they check. */
export function calculatorTool(overrides: Partial<orchestratorV1.CatalogTool> = {}): orchestratorV1.CatalogTool {
  return {
    name: 'calculator',
    description: 'Evaluates arithmetic.',
    inputSchemaJson: '{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}',
    kind: 'tool',
    runner: 'builtin-tools',
    version: '1.0.0',
    requiresApproval: false,
    timeoutMs: 5_000,
    sideEffect: 'none',
    instances: 1,
    runnerInstances: [],
    breaker: undefined,
    ...overrides,
  };
}
