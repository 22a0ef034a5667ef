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

  createKey(input: {
    tenantId: string;
    name: string;
    role: string;
    expiresAt: Date | undefined;
    subject: string | undefined;
    tier: string;
  }) {
    const { subject, ...rest } = input;
    return this.client.createApiKey({ ...rest, actor: { subject: subject ?? '' } }, this.settings());
  }

  listKeys(tenantId: string) {
    return this.client.listApiKeys({ tenantId }, this.settings());
  }

  revokeKey(input: { tenantId: string; keyId: string; subject: string | undefined }) {
    return this.client.revokeApiKey(
      { tenantId: input.tenantId, keyId: input.keyId, actor: { subject: input.subject ?? '' } },
      this.settings(),
    );
  }

  verifyKey(key: string) {
    return this.client.verifyApiKey({ key }, this.settings());
  }

  recordKeyUse(uses: credentialV1.KeyUse[]) {
    return this.client.recordKeyUse({ uses }, this.settings());
  }

  recordAdminAction(tenantId: string, action: Omit<credentialV1.AdminAction, 'id' | 'at'>) {
    return this.client.recordAdminAction({ tenantId, action: { ...action, id: 0, at: undefined } }, this.settings());
  }

  listAdminActions(input: { tenantId: string; beforeId: number; limit: number }) {
    return this.client.listAdminActions(input, this.settings());
  }

  /** Credentials per key-encryption key (operators: key status and rewrap progress). */
  keyUsage() {
    return this.client.getKeyUsage({}, this.settings());
  }
}
