/** The part of a service-kit gRPC client handle this helper needs. */
interface ClientHandle {
  readonly rpc: object;
  close(): void;
}

/**
 * One client over several, each calling as another service identity: every method goes through
 * the first identity (in `clients` order) that the server's caller table allows for it. For
 * in-process tests of a service whose methods different services call (the api reads facts, the
 * orchestrator appends history), checked against the service's real table.
 */
export function callerRoutedClient<H extends ClientHandle>(
  table: Readonly<Record<string, readonly string[]>>,
  clients: ReadonlyArray<readonly [identity: string, client: H]>,
): H {
  const first = clients[0]?.[1];
  if (!first) throw new Error('callerRoutedClient needs at least one client');
  const rpc: Record<string, unknown> = {};
  for (const method of Object.keys(first.rpc)) {
    const allowed = table[method] ?? [];
    const chosen = clients.find(
      ([identity]) =>
        allowed.includes(identity) || allowed.some((p) => p.endsWith('/*') && identity.startsWith(p.slice(0, -1))),
    );
    rpc[method] = ((chosen?.[1] ?? first).rpc as Record<string, unknown>)[method];
  }
  return { ...first, rpc, close: () => clients.forEach(([, client]) => client.close()) };
}
