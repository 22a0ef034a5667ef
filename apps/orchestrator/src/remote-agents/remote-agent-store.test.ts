// The remote agents' store and card checks against a real Postgres and a real A2A agent on
// loopback: a card fetched and kept, the quota per tenant, another tenant's agents unseen, a URL
// that reaches inside refused by the egress guard, a URL that serves no A2A card refused, and the
// token read from a credential's secret.
import { compileEgressAllowlist, EgressGuard } from '@platform/egress';
import { createLogger, isPlatformError } from '@platform/service-kit';
import { startA2aTestAgent, type A2aTestAgent } from '@platform/testing';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJournalDatabase } from '../test-support/journal-database.js';
import { RemoteAgentClients } from './remote-agent-card.js';
import { RemoteAgentStore } from './remote-agent-store.js';
import { tokenOfSecret } from './remote-agent-tokens.js';

const logger = createLogger({ service: 'remote-agent-store-test', level: 'silent' });
let pool: pg.Pool;
let agent: A2aTestAgent;
let store: RemoteAgentStore;
const loopback = new EgressGuard({
  allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: ['127.0.0.1/32'] }),
});
const strict = new EgressGuard({
  allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: [], EGRESS_ALLOW_CIDRS: [] }),
});

beforeAll(async () => {
  pool = await openJournalDatabase('remote_agent_store', logger);
  agent = await startA2aTestAgent({ name: 'Partner forecaster' });
  store = new RemoteAgentStore(pool);
});
afterAll(async () => {
  await Promise.all([loopback.close(), strict.close()]);
  await agent?.stop();
  await pool?.end();
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (err) {
    return isPlatformError(err) ? err.code : (err as Error).message;
  }
}

describe('remote agents', () => {
  it('fetches and validates the card with the SDK, keeping its name, skills and the interface used', async () => {
    const card = await new RemoteAgentClients(loopback, 5_000).inspect(agent.cardUrl);
    expect(card).toMatchObject({
      name: 'Partner forecaster',
      version: '1.0.0',
      skills: [{ id: 'forecast', name: 'Forecast', description: 'A forecast for a place.', tags: ['weather'] }],
      protocolVersion: '1.0',
      transport: 'JSONRPC',
    });
  });

  it('refuses a URL that reaches inside (EGRESS_REFUSED) and one that serves no A2A card', async () => {
    expect(await codeOf(new RemoteAgentClients(strict, 5_000).inspect(agent.cardUrl))).toBe('EGRESS_REFUSED');
    expect(await codeOf(new RemoteAgentClients(strict, 5_000).inspect('http://169.254.169.254/'))).toBe(
      'EGRESS_REFUSED',
    );
    const noCard = agent.cardUrl.replace('/.well-known/agent-card.json', '/nothing-here.json');
    expect(await codeOf(new RemoteAgentClients(loopback, 5_000).inspect(noCard))).toBe('REMOTE_AGENT_CARD_UNREADABLE');
  });

  it("keeps tenants apart, counts the tenant's quota and refuses a name taken", async () => {
    const card = await new RemoteAgentClients(loopback, 5_000).inspect(agent.cardUrl);
    const input = { url: agent.cardUrl, description: 'ours', card };
    const writer = { tenantId: 'acme', subject: 'alice', tier: 'small', maxRemoteAgents: 2 };
    await store.create(writer, 'one', input);
    expect(await codeOf(store.create(writer, 'one', input))).toBe('REMOTE_AGENT_EXISTS');
    await store.create(writer, 'two', input);
    expect(await codeOf(store.create(writer, 'three', input))).toBe('QUOTA_EXCEEDED');
    // Another tenant has its own count and sees none of acme's.
    await store.create({ ...writer, tenantId: 'globex' }, 'one', { ...input, description: 'theirs' });
    expect((await store.list('acme')).map((a) => [a.name, a.description])).toEqual([
      ['one', 'ours'],
      ['two', 'ours'],
    ]);
    expect(await store.get('globex', 'two')).toBeUndefined();
    expect(await codeOf(store.remove('globex', 'two'))).toBe('REMOTE_AGENT_NOT_FOUND');
    expect([...(await store.existing('globex', ['one', 'two']))]).toEqual(['one']);
    const updated = await store.update('acme', 'one', { ...input, description: 'changed' }, 1);
    expect(updated).toMatchObject({ version: 2, description: 'changed' });
    expect(await codeOf(store.update('acme', 'one', input, 1))).toBe('REMOTE_AGENT_VERSION_CONFLICT');
    expect(await codeOf(store.update('globex', 'two', input, 0))).toBe('REMOTE_AGENT_NOT_FOUND');
    await store.remove('acme', 'two');
    await store.create(writer, 'three', input);
  });

  it("reads the bearer token of a credential's secret: access_token, else token, visible ASCII only", () => {
    expect(tokenOfSecret('{"access_token":"at-1","token":"t-1"}')).toBe('at-1');
    expect(tokenOfSecret('{"token":"t-1"}')).toBe('t-1');
    expect(tokenOfSecret('{"token":"has space"}')).toBeUndefined();
    expect(tokenOfSecret('{"other":"x"}')).toBeUndefined();
    expect(tokenOfSecret('not json')).toBeUndefined();
  });
});
