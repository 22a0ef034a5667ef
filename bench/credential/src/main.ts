// Measures a credential read as a tool does it (GetCredential over gRPC on loopback, with a fresh
// grant per call, verified, decrypted, audited) against a plain Postgres select of the same row
// shape by primary key (the floor), and against an empty gRPC round trip to the same process (a
// grpc.health.v1 Check: the hop's own floor), side by side, in rotating blocks, on a durable Postgres.
// Run: npx nx run bench-credential:bench   (env: N, BLOCK, WARMUP, MODE=source|dist)
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { credentialV1 } from '@platform/proto';
import { cpuOfTree } from '@platform/bench-kit';
import { createGrpcClient, GrpcHealthProbe, MutualTlsTransport } from '@platform/service-kit';
import {
  callerRoutedClient,
  generateCredentialKeys,
  percentile,
  sharedServicePki,
  startPostgresServer,
  startServiceProcess,
  testCertificates,
  type ServiceMode,
} from '@platform/testing';
import { CredentialGrantIssuer } from '@platform/tool-sdk';
import { Metadata } from '@grpc/grpc-js';
import type { JWK } from 'jose';
import pg from 'pg';

function intEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}
const N = intEnv('N', 2_000);
const BLOCK = Math.min(N, intEnv('BLOCK', 200));
const WARMUP = intEnv('WARMUP', 300);
const MODE = (process.env['MODE'] ?? 'source') as ServiceMode;
const COST_N = intEnv('COST_N', 2_000);
const TARGET = { p50Ms: 1, ratio: 3 };

const write = (line = ''): void => void process.stdout.write(`${line}\n`);

/** Read and write system calls a process made so far (each Postgres round trip costs the service at least one of each). */
async function syscalls(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8');
  return Number(/syscr: (\d+)/.exec(io)?.[1]) + Number(/syscw: (\d+)/.exec(io)?.[1]);
}

async function main(): Promise<void> {
  const postgres = await startPostgresServer({ durability: 'durable' });
  const keys = generateCredentialKeys();
  const databaseUrl = await postgres.createDatabase('bench_credential');
  const service = await startServiceProcess({
    app: 'credential',
    mode: MODE,
    telemetry: false,
    env: {
      ...(await (await sharedServicePki()).env('credential')),
      DATABASE_URL: databaseUrl,
      GRPC_PORT: '0',
      LOG_LEVEL: 'warn',
      CREDENTIAL_KEYRING: keys.keyring,
      CREDENTIAL_GRANT_PUBLIC_KEYS: keys.grantPublicKeys,
      CREDENTIAL_PLATFORM_TOKENS: keys.platformToken,
      CREDENTIAL_REWRAP_INTERVAL_MS: '0',
    },
  });
  // The api stores (platform token), a runner reads (grant): each over mutual TLS as itself.
  const address = `127.0.0.1:${String(service.ready['grpcPort'])}`;
  const as = async (identity: string) =>
    [
      identity,
      createGrpcClient(credentialV1.CredentialServiceClient, credentialV1.CredentialServiceService, address, {
        defaultDeadlineMs: 10_000,
        transport: new MutualTlsTransport(await testCertificates(identity)),
        server: 'credential',
      }),
    ] as const;
  const client = callerRoutedClient({ saveCredential: ['api'], getCredential: ['runner/bench'] }, [
    await as('api'),
    await as('runner/bench'),
  ]);
  const health = new GrpcHealthProbe(address, new MutualTlsTransport(await testCertificates('api')), 'credential');
  const floor = new pg.Client({ connectionString: databaseUrl });
  await floor.connect();
  try {
    const secretJson = JSON.stringify({
      access_token: `ya29.${randomBytes(64).toString('base64url')}`,
      refresh_token: randomBytes(32).toString('hex'),
      expires_at: 1_900_000_000,
    });
    const platform = new Metadata();
    platform.set('authorization', `Bearer ${keys.platformToken}`);
    await client.rpc.saveCredential(
      {
        tenantId: 'bench',
        service: 'google',
        account: 'primary',
        secretJson,
        expectedVersion: undefined,
        grant: '',
        callId: '',
        actor: undefined,
      },
      { metadata: platform },
    );

    // The floor: the same row shape in a plain table, read by primary key over one connection.
    await floor.query(`CREATE TABLE floor_rows (tenant_id text, service text, account text, version bigint, key_id text, wrapped_key bytea, ciphertext bytea,
                       created_at timestamptz DEFAULT now(), updated_at timestamptz DEFAULT now(), PRIMARY KEY (tenant_id, service, account))`);
    await floor.query(
      `INSERT INTO floor_rows (tenant_id, service, account, version, key_id, wrapped_key, ciphertext) VALUES ('bench', 'google', 'primary', 1, 'k1', $1, $2)`,
      [randomBytes(60), randomBytes(secretJson.length + 28)],
    );

    // One grant per call, as the orchestrator issues them (signing is the orchestrator's cost, not measured here).
    const issuer = await CredentialGrantIssuer.fromJwk(JSON.parse(keys.grantSigningKey) as JWK);
    const total = N + WARMUP;
    const grants = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        issuer.issue({
          tenantId: 'bench',
          runId: 'run-1',
          callId: `call-${i}`,
          tool: 'send_email',
          services: ['google'],
          ttlSeconds: 600,
        }),
      ),
    );
    let next = 0;
    const viaGrant = async (): Promise<void> => {
      const i = next++ % total;
      const response = await client.rpc.getCredential({
        tenantId: 'bench',
        service: 'google',
        account: 'primary',
        grant: grants[i]!,
        callId: `call-${i}`,
        actor: undefined,
      });
      if (response.secretJson !== secretJson) throw new Error('the credential came back different');
    };
    const plainSelect = async (): Promise<void> => {
      const { rows } = await floor.query({
        name: 'floor',
        text: 'SELECT * FROM floor_rows WHERE tenant_id = $1 AND service = $2 AND account = $3',
        values: ['bench', 'google', 'primary'],
      });
      if (rows.length !== 1) throw new Error('floor row missing');
    };
    const emptyRpc = async (): Promise<void> => {
      if (!(await health.isServing('', 10_000))) throw new Error('the credential service is not serving');
    };
    const kinds = {
      'Get through a grant (gRPC)': viaGrant,
      'plain Postgres select': plainSelect,
      'empty gRPC call': emptyRpc,
    } as const;
    type Kind = keyof typeof kinds;
    const samples: Record<Kind, number[]> = {
      'Get through a grant (gRPC)': [],
      'plain Postgres select': [],
      'empty gRPC call': [],
    };

    for (let i = 0; i < WARMUP; i++) {
      for (const run of Object.values(kinds)) await run();
    }
    let order = Object.keys(kinds) as Kind[];
    for (let done = 0; done < N; done += BLOCK) {
      for (const kind of order) {
        for (let i = 0; i < BLOCK; i++) {
          const started = performance.now();
          await kinds[kind]();
          samples[kind].push(performance.now() - started);
        }
      }
      order = [...order.slice(1), order[0]!];
    }

    const stats = (kind: Kind) => {
      const sorted = [...samples[kind]].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    };
    const grant = stats('Get through a grant (gRPC)');
    const plain = stats('plain Postgres select');
    const hop = stats('empty gRPC call');
    write(
      `credential Get vs plain Postgres select — ${N} calls each, blocks of ${BLOCK}, durable Postgres (fsync on), service from ${MODE}`,
    );
    write();
    write('| kind | p50 ms | p99 ms |');
    write('|---|---|---|');
    write(`| Get through a grant (gRPC) | ${grant.p50.toFixed(3)} | ${grant.p99.toFixed(3)} |`);
    write(`| plain Postgres select (floor) | ${plain.p50.toFixed(3)} | ${plain.p99.toFixed(3)} |`);
    write(`| empty gRPC call (hop floor) | ${hop.p50.toFixed(3)} | ${hop.p99.toFixed(3)} |`);
    write(`| Get / select | ${(grant.p50 / plain.p50).toFixed(2)}x | ${(grant.p99 / plain.p99).toFixed(2)}x |`);
    write(
      `| Get / (empty gRPC call + select) | ${(grant.p50 / (hop.p50 + plain.p50)).toFixed(2)}x | ${(grant.p99 / (hop.p99 + plain.p99)).toFixed(2)}x |`,
    );
    write();
    write(
      `target: p50 <= ${TARGET.p50Ms} ms (${grant.p50 <= TARGET.p50Ms ? 'met' : 'NOT met'}), p50 ratio <= ${TARGET.ratio}x (${grant.p50 / plain.p50 <= TARGET.ratio ? 'met' : 'NOT met'})`,
    );

    // What one Get costs, robust to a loaded machine: CPU time of the service and of the whole
    // PostgreSQL cluster, and the service's system calls, over COST_N Gets back to back.
    const servicePid = service.pid!;
    const before = {
      service: await cpuOfTree(servicePid),
      postgres: await cpuOfTree(postgres.pid!),
      syscalls: await syscalls(servicePid),
    };
    for (let i = 0; i < COST_N; i++) await viaGrant();
    await sleep(100); // the last read audit batch
    const after = {
      service: await cpuOfTree(servicePid),
      postgres: await cpuOfTree(postgres.pid!),
      syscalls: await syscalls(servicePid),
    };
    const per = (a: number, b: number) => (((b - a) * 1000) / COST_N).toFixed(0);
    write();
    write(
      `cost per Get (${COST_N} back to back): service CPU ${per(before.service, after.service)} µs, PostgreSQL CPU ${per(before.postgres, after.postgres)} µs, service read+write syscalls ${((after.syscalls - before.syscalls) / COST_N).toFixed(1)}`,
    );
  } finally {
    await floor.end();
    health.close();
    client.close();
    await service.stop();
    await postgres.stop();
  }
}

await main();
