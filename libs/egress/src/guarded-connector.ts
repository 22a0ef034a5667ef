import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { ResolvedAddress } from './host-resolver.js';

/**
 * An undici connector that vets the host before every connection and connects to the first vetted
 * address by number. `servername` stays the host name, so TLS SNI and the certificate check are
 * made against the name the URL gave, not the address.
 */
export function guardedConnector(vetHost: (hostname: string) => Promise<ResolvedAddress[]>, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({ timeout: timeoutMs });
  return (options, callback) => {
    vetHost(options.hostname).then(
      (addresses) => {
        const pinned = addresses[0]!.address;
        const servername = options.servername ?? (isIP(options.hostname) === 0 ? options.hostname : undefined);
        connect({ ...options, hostname: pinned, ...(servername ? { servername } : {}) }, callback);
      },
      (err: unknown) => callback(err as Error, null),
    );
  };
}
