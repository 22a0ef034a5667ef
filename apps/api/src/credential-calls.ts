import { Metadata } from '@grpc/grpc-js';
import type { credentialV1 } from '@platform/proto';
import type { PromiseClient } from '@platform/service-kit';

type Client = PromiseClient<credentialV1.CredentialServiceClient>;

/**
 * The api's calls to the credential service, each authenticated with the api's platform token
 * and naming the api user for the audit trail.
 */
export class CredentialCalls {
  constructor(
    private readonly client: Client,
    private readonly platformToken: string,
  ) {}

  private settings(): { metadata: Metadata } {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${this.platformToken}`);
    return { metadata };
  }

  save(input: {
    tenantId: string;
    service: string;
    account: string;
    secretJson: string;
    expectedVersion: number | undefined;
    subject: string | undefined;
    tier: string;
  }) {
    const { subject, ...rest } = input;
    return this.client.saveCredential(
      { ...rest, grant: '', callId: '', actor: { subject: subject ?? '' } },
      this.settings(),
    );
  }

  list(input: { tenantId: string; service: string; subject: string | undefined }) {
    return this.client.listCredentials(
      { tenantId: input.tenantId, service: input.service, actor: { subject: input.subject ?? '' } },
      this.settings(),
    );
  }

  remove(input: { tenantId: string; service: string; account: string; subject: string | undefined }) {
    return this.client.deleteCredential(
      {
        tenantId: input.tenantId,
        service: input.service,
        account: input.account,
        actor: { subject: input.subject ?? '' },
      },
      this.settings(),
    );
  }

  audit(input: { tenantId: string; beforeId: number; limit: number }) {
    return this.client.listAuditEvents(input, this.settings());
  }

  /** Credentials per key-encryption key (operators: key status and rewrap progress). */
  keyUsage() {
    return this.client.getKeyUsage({}, this.settings());
  }
}
