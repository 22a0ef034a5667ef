import { createServer } from 'node:net';
import { ServiceKitError } from './errors.js';

/** Why a server could not bind its address, as the operating system said it. */
const REASONS: Record<string, { code: string; says: string }> = {
  EADDRINUSE: { code: 'ADDRESS_IN_USE', says: 'is already in use by another process (EADDRINUSE)' },
  EACCES: { code: 'ADDRESS_DENIED', says: 'may not be bound by this user (EACCES; ports below 1024 need privileges)' },
  EADDRNOTAVAIL: { code: 'ADDRESS_NOT_AVAILABLE', says: 'is not an address of this machine (EADDRNOTAVAIL)' },
};

/**
 * A server that could not listen: names the address and the setting that moves it, because the
 * libraries' own messages do not (grpc-js says only "No address added out of total 1 resolved").
 * `code`, `address` and `setting` are fields, so the JSON log line of a failed start carries them
 * and a launcher can say which of its own variables moves the port.
 */
export class ListenError extends ServiceKitError {
  constructor(
    readonly code: string,
    readonly address: string,
    readonly setting: string,
    says: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot listen on ${address}: the address ${says}; set ${setting} to another port to move it`, options);
  }
}

function osCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code in REASONS ? code : undefined;
}

/** Binds `host:port` once and lets go, to learn the OS error a library left out of its own. */
function probe(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error) => resolve(osCode(error)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * The error to throw when binding `host:port` failed with `cause`: a {@link ListenError} naming the
 * address and `setting` (the variable that sets the port), with the OS reason when it can be found.
 */
export async function listenFailure(host: string, port: number, setting: string, cause: unknown): Promise<Error> {
  const code = osCode(cause) ?? (port > 0 ? await probe(host, port) : undefined);
  const address = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  if (code === undefined)
    return new ListenError(
      'LISTEN_FAILED',
      address,
      setting,
      `could not be bound (${(cause as Error)?.message ?? String(cause)})`,
      { cause },
    );
  const reason = REASONS[code]!;
  return new ListenError(reason.code, address, setting, reason.says, { cause });
}
