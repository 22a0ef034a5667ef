// The durable peers: each framework or engine in its production durable mode, its state in storage
// before a turn answers (README, "The durable peers").
import type { DurableStore } from '../durable/durable-store.js';
import type { ModelEndpoint, Peer } from '../peer.js';
import { dbosPeer } from './dbos.js';
import { langGraphPostgresPeer } from './langgraph-postgres.js';
import { mastraPgPeer } from './mastra-pg.js';
import { restatePeer } from './restate.js';

export const DURABLE_PEER_KEYS = ['langgraph-postgres', 'mastra-pg', 'dbos', 'restate'] as const;
export type DurablePeerKey = (typeof DURABLE_PEER_KEYS)[number];

export function makeDurablePeer(key: DurablePeerKey, endpoint: ModelEndpoint, store: DurableStore): Peer {
  switch (key) {
    case 'langgraph-postgres':
      return langGraphPostgresPeer(endpoint, store);
    case 'mastra-pg':
      return mastraPgPeer(endpoint, store);
    case 'dbos':
      return dbosPeer(endpoint, store);
    case 'restate':
      return restatePeer(endpoint);
  }
}
