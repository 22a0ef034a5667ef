import type { Logger } from 'pino';
import { z } from 'zod';
import { ConfigError, env, loadConfig } from './config.js';
import { MutualTlsTransport, PlaintextTransport, TransportFileError, type GrpcTransport } from './grpc-transport.js';

/**
 * The gRPC transport settings every service that serves or calls gRPC shares, spread into its
 * config schema (`z.object({ ...grpcTlsEnv, ... })`). Mutual TLS is required: the three files
 * must be set unless GRPC_INSECURE_PLAINTEXT=true (a dev switch that logs a warning at boot).
 */
export const grpcTlsEnv = {
  /** The platform CA certificate (PEM): the only issuer trusted for peers. */
  GRPC_TLS_CA_FILE: z.string().min(1).optional(),
  /** This service's certificate (PEM) with its `spiffe://<trust-domain>/<service>` URI SAN. */
  GRPC_TLS_CERT_FILE: z.string().min(1).optional(),
  /** Its private key (PEM, PKCS#8). */
  GRPC_TLS_KEY_FILE: z.string().min(1).optional(),
  /** How often the three files are read again (renewed certificates apply without a restart). */
  GRPC_TLS_RELOAD_MS: env.positiveInt().default(60_000),
  /** Dev only: plaintext gRPC, no caller identities, every method open to anyone who connects. */
  GRPC_INSECURE_PLAINTEXT: env.boolean().default(false),
};

export interface GrpcTlsEnv {
  GRPC_TLS_CA_FILE?: string | undefined;
  GRPC_TLS_CERT_FILE?: string | undefined;
  GRPC_TLS_KEY_FILE?: string | undefined;
  GRPC_TLS_RELOAD_MS: number;
  GRPC_INSECURE_PLAINTEXT: boolean;
}

const VARIABLE_OF = {
  caFile: 'GRPC_TLS_CA_FILE',
  certFile: 'GRPC_TLS_CERT_FILE',
  keyFile: 'GRPC_TLS_KEY_FILE',
} as const;

/**
 * Compiles the shared settings into the service's transport, reading and checking the files once
 * (readable, the certificate issued by the CA, one SPIFFE ID); a ConfigError names the variable.
 */
export function compileGrpcTransport(config: GrpcTlsEnv): GrpcTransport {
  const files = {
    caFile: config.GRPC_TLS_CA_FILE,
    certFile: config.GRPC_TLS_CERT_FILE,
    keyFile: config.GRPC_TLS_KEY_FILE,
  };
  if (config.GRPC_INSECURE_PLAINTEXT) {
    const set = Object.entries(files).filter(([, value]) => value !== undefined);
    if (set.length > 0)
      throw new ConfigError(
        set.map(([key]) => ({
          variable: VARIABLE_OF[key as keyof typeof VARIABLE_OF],
          message: 'set together with GRPC_INSECURE_PLAINTEXT=true: choose one',
        })),
      );
    return new PlaintextTransport();
  }
  const missing = (Object.keys(files) as Array<keyof typeof files>).filter((key) => files[key] === undefined);
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map((key) => ({
        variable: VARIABLE_OF[key],
        message:
          'required: gRPC between services is mutual TLS (GRPC_INSECURE_PLAINTEXT=true turns it off for local development only)',
      })),
    );
  }
  try {
    return new MutualTlsTransport({
      caFile: files.caFile!,
      certFile: files.certFile!,
      keyFile: files.keyFile!,
      reloadMs: config.GRPC_TLS_RELOAD_MS,
    });
  } catch (err) {
    if (!(err instanceof TransportFileError)) throw err;
    throw new ConfigError([{ variable: VARIABLE_OF[err.file], message: err.message }]);
  }
}

/** `compileGrpcTransport`, with the warning the plaintext dev switch owes the operator, logged at boot. */
export function openGrpcTransport(config: GrpcTlsEnv, logger: Logger): GrpcTransport {
  const transport = compileGrpcTransport(config);
  if (transport.kind === 'plaintext') {
    logger.warn(
      'GRPC_INSECURE_PLAINTEXT=true: gRPC is plaintext and every method is open to anyone who can connect; for local development only (docs/security.md)',
    );
  }
  return transport;
}

/** The transport of a process that has no config schema of its own (a runner script): GRPC_TLS_* from `source`. */
export function grpcTransportFromEnv(source: NodeJS.ProcessEnv = process.env): GrpcTransport {
  return compileGrpcTransport(loadConfig(z.object(grpcTlsEnv), source));
}
