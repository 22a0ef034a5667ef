// Unary gRPC with JSON bodies and no generated code: the skeleton's services talk over the same
// transport (grpc-js, HTTP/2, one channel per peer) as the platform's, without its protobuf types.
import * as grpc from '@grpc/grpc-js';

const encode = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const decode = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'));

function pathOf(method: string): string {
  return `/skeleton.Skeleton/${method}`;
}

export type UnaryMethods = Record<string, (request: unknown) => Promise<unknown>>;

/** Serves `methods` on 127.0.0.1 (a free port); resolves with the server and its port. */
export async function serveJsonGrpc(methods: UnaryMethods): Promise<{ server: grpc.Server; port: number }> {
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, handle] of Object.entries(methods)) {
    definition[method] = {
      path: pathOf(method),
      requestStream: false,
      responseStream: false,
      requestSerialize: encode,
      requestDeserialize: decode,
      responseSerialize: encode,
      responseDeserialize: decode,
    };
    implementation[method] = (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      handle(call.request).then(
        (response) => callback(null, response),
        (err: unknown) => callback({ code: grpc.status.INTERNAL, details: (err as Error).message }),
      );
    };
  }
  const server = new grpc.Server();
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return { server, port };
}

/** A client of a JSON gRPC service: `call(method, request)` with a deadline, as the platform's calls have. */
export class JsonGrpcClient {
  private readonly client: grpc.Client;

  constructor(
    address: string,
    private readonly deadlineMs = 10_000,
  ) {
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
  }

  call<T>(method: string, request: unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.client.makeUnaryRequest(
        pathOf(method),
        encode,
        decode,
        request,
        { deadline: Date.now() + this.deadlineMs },
        (err, response) => (err ? reject(err) : resolve(response as T)),
      );
    });
  }

  close(): void {
    this.client.close();
  }
}
