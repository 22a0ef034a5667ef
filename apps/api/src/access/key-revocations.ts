import { API_KEY_REVOKED_SUBJECT, ApiKeyRevoked } from '@platform/contracts';
import { jsonBody, type Logger, type NatsConnection } from '@platform/service-kit';
import type { KeyRevocations } from '../routes/keys.js';

/**
 * Revocations over core NATS: the replica that revoked a key forgets it at once and tells the
 * others, which forget it when the notice arrives (well within a second). A lost notice is
 * bounded by API_KEY_CACHE_MS, after which every replica asks the credential service again.
 */
export class NatsKeyRevocations implements KeyRevocations {
  constructor(
    private readonly nc: NatsConnection,
    private readonly forget: (keyId: string) => void,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  announce(keyId: string): void {
    this.forget(keyId);
    this.nc.publish(API_KEY_REVOKED_SUBJECT, JSON.stringify({ keyId } satisfies ApiKeyRevoked));
  }

  /** Hears every replica's notices (this one's too: forgetting twice is harmless). */
  listen(): void {
    const sub = this.nc.subscribe(API_KEY_REVOKED_SUBJECT);
    void (async () => {
      for await (const msg of sub) {
        const parsed = ApiKeyRevoked.safeParse(jsonBody(msg));
        if (parsed.success) this.forget(parsed.data.keyId);
        else this.logger.warn({ subject: msg.subject }, 'ignored a malformed API key revocation');
      }
    })();
  }
}
