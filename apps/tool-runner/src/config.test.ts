import { ConfigError, loadConfig } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { RunnerConfig } from './config.js';
import { builtinTools } from './builtin-tools.js';

function configError(environment: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(RunnerConfig, environment);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('web_fetch configuration', () => {
  it('is disabled by default', () => {
    const config = loadConfig(RunnerConfig, {});
    expect(config).toMatchObject({
      WEB_FETCH_ENABLED: false,
      WEB_FETCH_ALLOWED_HOSTS: [],
      WEB_FETCH_MAX_BYTES: 512 * 1024,
      WEB_FETCH_TIMEOUT_MS: 10_000,
      WEB_FETCH_MAX_REDIRECTS: 3,
    });
    expect(builtinTools(config).map((t) => t.name)).toEqual(['calculator', 'current_time']);
  });

  it('serves web_fetch when enabled, with its timeout and allowlist published', () => {
    const config = loadConfig(RunnerConfig, {
      WEB_FETCH_ENABLED: 'true',
      WEB_FETCH_ALLOWED_HOSTS: 'docs.example.com, *.example.org:8443',
      WEB_FETCH_TIMEOUT_MS: '2500',
      WEB_FETCH_MAX_REDIRECTS: '0',
    });
    expect(config.WEB_FETCH_MAX_REDIRECTS).toBe(0);
    const tool = builtinTools(config).find((t) => t.name === 'web_fetch');
    expect(tool).toMatchObject({ timeoutMs: 2_500, sideEffect: 'none', version: '1.0.0', requiresApproval: false });
    expect(tool!.description).toContain('docs.example.com, *.example.org:8443 (any subdomain of example.org)');
  });

  it.each([{}, { WEB_FETCH_ALLOWED_HOSTS: '' }, { WEB_FETCH_ALLOWED_HOSTS: ' , ' }])(
    'fails to boot when enabled without hosts (%o)',
    (hosts) => {
      const error = configError({ WEB_FETCH_ENABLED: 'yes', ...hosts });
      expect(error.problems).toEqual([
        {
          variable: 'WEB_FETCH_ALLOWED_HOSTS',
          message: expect.stringMatching(/required when WEB_FETCH_ENABLED is true/),
        },
      ]);
      expect(error.message).toContain('WEB_FETCH_ALLOWED_HOSTS: required');
    },
  );

  it('names the variable and the entry of an unusable allowlist entry', () => {
    const error = configError({
      WEB_FETCH_ENABLED: 'true',
      WEB_FETCH_ALLOWED_HOSTS: 'example.com,https://bad.example/path',
    });
    expect(error.problems).toEqual([
      { variable: 'WEB_FETCH_ALLOWED_HOSTS', message: expect.stringContaining("'https://bad.example/path'") },
    ]);
  });

  it('rejects bad limits', () => {
    const error = configError({ WEB_FETCH_MAX_BYTES: '0', WEB_FETCH_TIMEOUT_MS: 'soon', WEB_FETCH_ENABLED: 'maybe' });
    expect(error.problems.map((p) => p.variable).sort()).toEqual([
      'WEB_FETCH_ENABLED',
      'WEB_FETCH_MAX_BYTES',
      'WEB_FETCH_TIMEOUT_MS',
    ]);
  });
});
