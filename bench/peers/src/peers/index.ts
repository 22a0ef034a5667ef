import type { BenchPlatform, SkeletonDuty } from '@platform/bench-kit';
import type { DurableStore } from '../durable/durable-store.js';
import type { ModelEndpoint, Peer } from '../peer.js';
import { DURABLE_PEER_KEYS, makeDurablePeer, type DurablePeerKey } from './durable.js';
import { langGraphPeer } from './langgraph.js';
import { mastraPeer } from './mastra.js';
import { openaiAgentsPeer } from './openai-agents.js';
import { ourEnginePeer } from './our-engine.js';
import { ourPlatformPeer } from './our-platform.js';
import { ourSkeletonPeer } from './our-skeleton.js';
import { vercelAiPeer } from './vercel-ai.js';

/**
 * Every peer, by key, in the order of the tables: the frameworks in process (they keep nothing),
 * the durable peers, then ours (the engine, the platform, and the floor of the platform's design
 * without and with the product's duties).
 */
export const PEER_KEYS = [
  'vercel-ai',
  'openai-agents',
  'langgraph',
  'mastra',
  ...DURABLE_PEER_KEYS,
  'our-engine',
  'our-platform',
  'our-skeleton',
  'our-skeleton-duties',
] as const;
export type PeerKey = (typeof PEER_KEYS)[number];

export function makePeer(
  key: PeerKey,
  endpoint: ModelEndpoint,
  platform: BenchPlatform,
  store: DurableStore,
  floorDuties: readonly SkeletonDuty[],
): Peer {
  if ((DURABLE_PEER_KEYS as readonly string[]).includes(key))
    return makeDurablePeer(key as DurablePeerKey, endpoint, store);
  switch (key as Exclude<PeerKey, DurablePeerKey>) {
    case 'vercel-ai':
      return vercelAiPeer(endpoint);
    case 'openai-agents':
      return openaiAgentsPeer(endpoint);
    case 'langgraph':
      return langGraphPeer(endpoint);
    case 'mastra':
      return mastraPeer(endpoint);
    case 'our-engine':
      return ourEnginePeer(endpoint);
    case 'our-platform':
      return ourPlatformPeer(platform);
    case 'our-skeleton':
      return ourSkeletonPeer(platform, []);
    case 'our-skeleton-duties':
      return ourSkeletonPeer(platform, floorDuties);
  }
}
