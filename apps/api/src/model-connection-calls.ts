import { Metadata } from '@grpc/grpc-js';
import type { credentialV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

type Client = PromiseClient<credentialV1.CredentialServiceClient>;

/** Tells the orchestrators' caches that a connection changed (a core NATS notice; see server.ts). */
type ModelConnectionAnnouncer = (tenantId: string, name: string) => void;

/**
 * The api's calls for model connections to the credential service, with the api's platform token
 * and the api user for the audit trail. Every write is announced after it succeeds, so the
 * orchestrators drop their cached copy (they also expire it, should a notice be lost).
 */
export class ModelConnectionCalls {
  constructor(
    private readonly client: Client,
    private readonly platformToken: string,
    private readonly announce: ModelConnectionAnnouncer,
  ) {}

  private settings(): { metadata: Metadata } {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.platformToken}`);
    return { metadata };
  }

  async create(input: {
    tenantId: string;
    name: string;
    baseUrl: string;
    apiKey: string;
    models: string[];
    subject: string | undefined;
    tier: string;
  }) {
    const { subject, ...rest } = input;
    const reply = await this.client.createModelConnection(
      { ...rest, actor: { subject: subject ?? '' } },
      this.settings(),
    );
    this.announce(input.tenantId, input.name);
    return reply;
  }

  async replace(input: {
    tenantId: string;
    name: string;
    baseUrl: string;
    apiKey: string | undefined;
    models: string[];
    expectedVersion: number | undefined;
    subject: string | undefined;
    tier: string;
  }) {
    const { subject, ...rest } = input;
    const reply = await this.client.updateModelConnection(
      { ...rest, replaceModels: true, actor: { subject: subject ?? '' } },
      this.settings(),
    );
    this.announce(input.tenantId, input.name);
    return reply;
  }

  get(input: { tenantId: string; name: string; subject: string | undefined }) {
    return this.client.getModelConnection(
      { tenantId: input.tenantId, name: input.name, actor: { subject: input.subject ?? '' } },
      this.settings(),
    );
  }

  list(input: { tenantId: string; subject: string | undefined }) {
    return this.client.listModelConnections(
      { tenantId: input.tenantId, actor: { subject: input.subject ?? '' } },
      this.settings(),
    );
  }

  async remove(input: { tenantId: string; name: string; subject: string | undefined }) {
    const reply = await this.client.deleteModelConnection(
      { tenantId: input.tenantId, name: input.name, actor: { subject: input.subject ?? '' } },
      this.settings(),
    );
    this.announce(input.tenantId, input.name);
    return reply;
  }
}
