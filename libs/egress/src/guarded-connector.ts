import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { ResolvedAddress } from './host-resolver.js';

/**
 * An undici connector that vets the host before every connection and connects to the first vetted
 * address by number. `servername` stays the host name, so TLS SNI and the certificate check are
 * made against the name the URL gave, not the address.
 */
export function guardedConnector(
  vetHost: (hostname: string) => Promise<ResolvedAddress[]>,
  options: buildConnector.BuildOptions,
): buildConnector.connector {
  const connect = buildConnector(options);
  return (target, callback) => {
    vetHost(target.hostname).then(
      (addresses) => {
        const pinned = addresses[0]!.address;
        const servername = target.servername ?? (isIP(target.hostname) === 0 ? target.hostname : undefined);
        connect({ ...target, hostname: pinned, ...(servername ? { servername } : {}) }, callback);
      },
      (err: unknown) => callback(err as Error, null),
    );
  };
}
