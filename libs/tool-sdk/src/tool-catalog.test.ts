import type { ToolDescriptor } from '@platform/contracts';
import { createLogger } from '@platform/service-kit';
import { describe, expect, it } from 'vitest';
import { resolveOffers } from './tool-catalog.js';
import { compareVersions } from './versions.js';

const logger = createLogger({ service: 'test', level: 'silent' });

function offer(runner: string, version: string, schemaHash = 'h1', instance = `${runner}-1`, dedupe = false) {
  const descriptor: ToolDescriptor = {
    name: 'search',
    kind: 'tool',
    description: 'd',
    inputSchema: {},
    timeoutMs: 1_000,
    requiresApproval: false,
    sideEffect: 'none',
    version,
    schemaHash,
  };
  return { descriptor, runner, instance, dedupe };
}

describe('resolveOffers', () => {
  it('merges replicas of one runner', () => {
    const entry = resolveOffers('search', [offer('a', '1.0.0', 'h1', 'a-1'), offer('a', '1.0.0', 'h1', 'a-2')], logger);
    expect(entry?.instances).toEqual(['a-1', 'a-2']);
  });

  it('promises dedupe only when every replica of the chosen offer does', () => {
    expect(
      resolveOffers('search', [offer('a', '1.0.0', 'h1', 'a-1', true), offer('a', '1.0.0', 'h1', 'a-2', true)], logger)
        ?.dedupe,
    ).toBe(true);
    expect(
      resolveOffers('search', [offer('a', '1.0.0', 'h1', 'a-1', true), offer('a', '1.0.0', 'h1', 'a-2', false)], logger)
        ?.dedupe,
    ).toBe(false);
  });

  it('chooses the highest version', () => {
    expect(resolveOffers('search', [offer('a', '1.9.0'), offer('b', '1.10.0', 'h2')], logger)?.runner).toBe('b');
  });

  it('withholds a tool two runners offer in the same version with different schemas', () => {
    expect(resolveOffers('search', [offer('a', '2.0.0', 'h1'), offer('b', '2.0.0', 'h2')], logger)).toBeUndefined();
  });
});

describe('compareVersions', () => {
  it('orders numerically and puts pre-releases first', () => {
    const sorted = ['1.10.0', '1.2.0', '1.2.0-rc.1', '0.9', '1.2.0-rc.10'].sort(compareVersions);
    expect(sorted).toEqual(['0.9', '1.2.0-rc.1', '1.2.0-rc.10', '1.2.0', '1.10.0']);
  });
});
