import { loadConfig } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { OrchestratorConfig } from './config.js';

const base = { OPENAI_API_KEY: 'k' };

describe('memory recall configuration', () => {
  it('defaults to a 400-token block within a 250 ms deadline', () => {
    expect(loadConfig(OrchestratorConfig, base)).toMatchObject({
      MEMORY_CONTEXT_TOKENS: 400,
      MEMORY_RECALL_TIMEOUT_MS: 250,
      MEMORY_RECALL_LIMIT: 8,
      MEMORY_RECALL_MAX_IN_FLIGHT: 64,
      MEMORY_RECALL_COLLECTION_PREFIX: '',
    });
  });

  it('refuses a block that would take more than a quarter of the context window, naming the variable', () => {
    expect(() => loadConfig(OrchestratorConfig, { ...base, CONTEXT_TOKEN_LIMIT: '1000' })).toThrow(
      /MEMORY_CONTEXT_TOKENS/,
    );
    expect(
      loadConfig(OrchestratorConfig, { ...base, CONTEXT_TOKEN_LIMIT: '1000', MEMORY_CONTEXT_TOKENS: '0' })
        .MEMORY_CONTEXT_TOKENS,
    ).toBe(0);
    expect(() => loadConfig(OrchestratorConfig, { ...base, MEMORY_RECALL_TIMEOUT_MS: '0' })).toThrow(
      /MEMORY_RECALL_TIMEOUT_MS/,
    );
  });
});
