import type { AgentCard } from '@a2a-js/sdk';
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { egressRefusalOf, type EgressGuard } from '@platform/egress';
import { ErrorCodes } from '../error-codes.js';
import { remoteAgentError } from './remote-agent-errors.js';

/** What a remote agent's card said when it was last fetched (stored with the remote agent). */
export interface RemoteAgentCardSummary {
  name: string;
  description: string;
  version: string;
  skills: { id: string; name: string; description: string; tags: string[] }[];
  /** The A2A version and binding of the interface the platform talks to. */
  protocolVersion: string;
  transport: string;
  streaming: boolean;
  fetchedAt: string;
}

/** The longest card text kept of a field (a card is the remote's to write). */
const MAX_FIELD = 2_000;
const MAX_SKILLS = 64;

const cut = (text: string | undefined): string => (text ?? '').slice(0, MAX_FIELD);

/** The part of a card the platform keeps and shows. */
function summaryOf(card: AgentCard, client: Client, now = new Date()): RemoteAgentCardSummary {
  return {
    name: cut(card.name),
    description: cut(card.description),
    version: cut(card.version),
    skills: (card.skills ?? []).slice(0, MAX_SKILLS).map((s) => ({
      id: cut(s.id),
      name: cut(s.name),
      description: cut(s.description),
      tags: (s.tags ?? []).slice(0, 32).map(cut),
    })),
    protocolVersion: client.protocolVersion,
    transport: client.transport.protocolName,
    streaming: card.capabilities?.streaming === true,
    fetchedAt: now.toISOString(),
  };
}

/** A card URL whose path ends in `/` is the agent's base: the well-known card path is appended. */
function cardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('/')) parsed.pathname += '.well-known/agent-card.json';
  return parsed.toString();
}

/**
 * `fetch` for the A2A SDK through the egress guard (every connection vetted when it opens, no
 * redirect followed), with the remote agent's token added to every request when it has one.
 */
function guardedFetch(egress: EgressGuard, token: string | undefined): typeof fetch {
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : undefined;
    const url = input instanceof Request ? input.url : input;
    const headers = new Headers(init?.headers ?? request?.headers);
    if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    // The SDK sends JSON text; a Request's body is read as text.
    const body = typeof init?.body === 'string' ? init.body : request ? await request.text() : undefined;
    const response = await egress.fetch(url, {
      method: init?.method ?? request?.method ?? 'GET',
      headers: Object.fromEntries(headers.entries()),
      ...(body ? { body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    return response;
  };
  return guarded;
}

/** Why the card could not be used, as REMOTE_AGENT_CARD_UNREADABLE or EGRESS_REFUSED (never the URL or a token). */
function cardError(err: unknown): Error {
  const refused = egressRefusalOf(err);
  if (refused)
    return remoteAgentError('invalid_argument', ErrorCodes.EGRESS_REFUSED, `url: ${refused.message}`, {
      details: { field: 'url', reason: refused.reason },
    });
  const message = (err as Error)?.message ?? String(err);
  return remoteAgentError(
    'failed_precondition',
    ErrorCodes.REMOTE_AGENT_CARD_UNREADABLE,
    `the agent card could not be used: ${message.slice(0, 300)}`,
  );
}

/**
 * A2A clients of remote agents, made with `@a2a-js/sdk`: the card is fetched from its URL (the
 * SDK's resolver validates and normalizes it, v0.3 cards included), and a client is made for the
 * first interface the platform speaks (JSON-RPC, else HTTP+JSON). Everything goes through the
 * egress guard.
 */
export class RemoteAgentClients {
  constructor(
    private readonly egress: EgressGuard,
    private readonly callTimeoutMs: number,
  ) {}

  /** The card and a client for it; the token (if any) goes with every request, never in a log. */
  async open(url: string, token?: string): Promise<{ card: AgentCard; client: Client }> {
    const fetchImpl = guardedFetch(this.egress, token);
    const legacyCompat = { enabled: true };
    const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat });
    const factory = new ClientFactory({
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
        new RestTransportFactory({ fetchImpl, legacyCompat }),
      ],
      cardResolver: resolver,
      clientConfig: { polling: true, acceptedOutputModes: ['text/plain', 'text/markdown', 'application/json'] },
    });
    try {
      const card = await withTimeout(resolver.resolve(cardUrlOf(url), ''), this.callTimeoutMs);
      if (!card.name) throw new Error('the card has no name');
      const client = await factory.createFromAgentCard(card);
      return { card, client };
    } catch (err) {
      throw cardError(err);
    }
  }

  /** Checks a URL as a tenant writes it (egress guard), then fetches and validates the card (with the token, if any). */
  async inspect(url: string, token?: string): Promise<RemoteAgentCardSummary> {
    try {
      await this.egress.checkUrl(url);
    } catch (err) {
      throw cardError(err);
    }
    const { card, client } = await this.open(url, token);
    return summaryOf(card, client);
  }
}

/** `promise`, or a rejection once `ms` passed. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
