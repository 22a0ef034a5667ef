import { describe, expect, it } from 'vitest';
import { QUOTA_DEFAULTS, quotasFor, TenantTiersEnv } from './tenant-tiers.js';

describe('TENANT_TIERS', () => {
  it('parses tiers with any of the fields, and refuses unknown fields, bad values and bad JSON', () => {
    expect(TenantTiersEnv.parse('{"free":{"facts":10,"minScheduleIntervalSeconds":300}}')).toEqual({
      free: { facts: 10, minScheduleIntervalSeconds: 300 },
    });
    expect(TenantTiersEnv.parse(undefined)).toEqual({});
    for (const bad of [
      '{"free":{"fact":10}}',
      '{"free":{"facts":-1}}',
      '{"free":{"minScheduleIntervalSeconds":0}}',
      '{"free tier":{}}',
      '[',
      '{"free":{"facts":1.5}}',
    ]) {
      expect(TenantTiersEnv.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("resolves a request's tier: its own, else the default tier's, each unset quota from the defaults", () => {
    const tiers = { default: { facts: 5 }, pro: { facts: 50, tasks: 7 } };
    expect(quotasFor(tiers, 'pro', 'default')).toMatchObject({
      tier: 'pro',
      quotas: { ...QUOTA_DEFAULTS, facts: 50, tasks: 7 },
    });
    expect(quotasFor(tiers, '', 'default')).toMatchObject({ tier: 'default', quotas: { ...QUOTA_DEFAULTS, facts: 5 } });
    expect(quotasFor(tiers, 'unknown', 'default')).toMatchObject({ tier: 'default', quotas: { facts: 5 } });
    expect(quotasFor({}, 'x', 'default', { tasks: 3 }).quotas).toEqual({ ...QUOTA_DEFAULTS, tasks: 3 });
    expect(quotasFor(tiers, 'toString', 'default').tier).toBe('default');
  });
});
