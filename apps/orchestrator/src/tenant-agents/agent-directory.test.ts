// The per-replica directory over a real NATS server: two directories (two replicas) forget a
// tenant's lookups when either announces a change, a read that raced a change is not kept, and
// another tenant's entries stay.
import { connectNats, createLogger, type NatsConnection } from '@platform/service-kit';
import { startNatsServer, type NatsServerHandle } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentDirectory, agentsChangedSubject } from './agent-directory.js';
import type { AgentRecord } from './agent-types.js';

const logger = createLogger({ service: 'test', level: 'silent' });
let server: NatsServerHandle;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await server.stop();
});

/** A store whose answers the test changes, counting its reads. */
function store() {
  const state = { version: 1, reads: 0, gate: undefined as Promise<void> | undefined };
  return {
    state,
    find: async (tenantId: string, ref: string) => {
      state.reads += 1;
      const version = state.version;
      await state.gate;
      return { tenantId, agentId: `agt_${ref}`, name: ref, activeVersion: version } as unknown as AgentRecord;
    },
    pinOf: () => Promise.resolve(undefined),
  };
}

async function replica(backing: ReturnType<typeof store>): Promise<AgentDirectory> {
  const nc = await connectNats({ servers: server.url, name: 'directory-test', logger });
  connections.push(nc);
  const directory = new AgentDirectory(backing, nc, logger);
  directory.start();
  await nc.flush();
  return directory;
}

describe('the agent directory', () => {
  it('answers from memory until a change of the tenant is announced by any replica', async () => {
    const backing = store();
    const [a, b] = [await replica(backing), await replica(backing)];
    expect((await a.agent('acme', 'bot'))?.activeVersion).toBe(1);
    expect((await b.agent('acme', 'bot'))?.activeVersion).toBe(1);
    expect((await b.agent('other', 'bot'))?.activeVersion).toBe(1);
    const reads = backing.state.reads;
    expect((await b.agent('acme', 'bot'))?.activeVersion).toBe(1);
    expect(backing.state.reads).toBe(reads);

    backing.state.version = 2;
    a.announce('acme');
    expect((await a.agent('acme', 'bot'))?.activeVersion).toBe(2);
    await expect.poll(async () => (await b.agent('acme', 'bot'))?.activeVersion).toBe(2);
    // Another tenant's entry was kept.
    expect((await b.agent('other', 'bot'))?.activeVersion).toBe(1);
  });

  it('does not keep a read that a change notice overtook', async () => {
    const backing = store();
    const directory = await replica(backing);
    let open!: () => void;
    backing.state.gate = new Promise((resolve) => (open = resolve));
    const racing = directory.agent('acme', 'slow');
    await expect.poll(() => backing.state.reads).toBe(1);
    directory.announce('acme');
    backing.state.gate = undefined;
    backing.state.version = 2;
    open();
    expect((await racing)?.activeVersion).toBe(1);
    expect((await directory.agent('acme', 'slow'))?.activeVersion).toBe(2);
  });

  it('names the subject with the one key encoding, so tenant ids cannot collide', () => {
    expect(agentsChangedSubject('a.b')).not.toBe(agentsChangedSubject('a%2Eb'));
    expect(agentsChangedSubject('a.b').split('.')).toHaveLength(5);
  });
});
