import { loadPackageDefinition, type ChannelCredentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath } from 'grpc-health-check';
import type { GrpcTransport } from './grpc-transport.js';

type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';
interface HealthClient extends Client {
  check(
    request: { service: string },
    options: { deadline: number },
    callback: (error: ServiceError | null, response: { status: ServingStatus }) => void,
  ): void;
}
type HealthClientConstructor = new (address: string, creds: ChannelCredentials) => HealthClient;

function loadHealthClientConstructor(): HealthClientConstructor {
  const definition = loadPackageDefinition(
    loadSync(protoPath, { keepCase: true, enums: String, defaults: true }),
  ) as unknown as {
    grpc: { health: { v1: { Health: HealthClientConstructor } } };
  };
  return definition.grpc.health.v1.Health;
}

/** Asks one server's `grpc.health.v1` service whether it is serving; keeps one channel for repeated probes. */
export class GrpcHealthProbe {
  private readonly client: HealthClient;

  /** `server` is the identity the server at `address` must prove (mutual TLS), e.g. `memory`. */
  constructor(
    readonly address: string,
    transport: GrpcTransport,
    server: string,
  ) {
    const Health = loadHealthClientConstructor();
    this.client = new Health(address, transport.channelCredentials(server));
  }

  /** True when `service` ('' = the whole server) reports SERVING within `timeoutMs`. */
  async isServing(service: string, timeoutMs: number): Promise<boolean> {
    try {
      const status = await new Promise<ServingStatus>((resolve, reject) => {
        this.client.check({ service }, { deadline: Date.now() + timeoutMs }, (error, response) =>
          error ? reject(error) : resolve(response.status),
        );
      });
      return status === 'SERVING';
    } catch {
      return false;
    }
  }

  close(): void {
    this.client.close();
  }
}
