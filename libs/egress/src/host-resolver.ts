import { lookup } from 'node:dns/promises';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Tests inject their own (e.g. to play a DNS rebind). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts counts), every address in the order it answers. */
export const systemResolver: HostResolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
};

/** Resolves with `resolver`, failing after `timeoutMs` (getaddrinfo itself cannot be cancelled). */
export async function resolveWithin(
  resolver: HostResolver,
  hostname: string,
  timeoutMs: number,
): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`resolving took longer than ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([resolver(hostname), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
