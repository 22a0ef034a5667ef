import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import { credentials, experimental, ServerCredentials, type ChannelCredentials } from '@grpc/grpc-js';
import { identityInSubjectAltName, spiffeId, type ServiceIdentity } from './service-identity.js';
import { ServiceKitError } from './errors.js';

/** The PEM files of one service's identity and of the CA that issued every service's certificate. */
export interface MutualTlsFiles {
  /** The platform CA (PEM), the only issuer trusted for peers. */
  caFile: string;
  /** This service's certificate (PEM), with its SPIFFE ID as URI SAN; may carry the chain. */
  certFile: string;
  /** Its private key (PEM, PKCS#8). */
  keyFile: string;
  /** How often the three files are read again, so a renewed certificate is used without a restart (default 60 s). */
  reloadMs?: number;
}

/** Why a transport cannot be built from its files; `file` says which one. */
export class TransportFileError extends ServiceKitError {
  readonly code = 'GRPC_TLS_FILE_INVALID';
  constructor(
    readonly file: 'caFile' | 'certFile' | 'keyFile',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Mutual TLS with the platform CA: the server requires a client certificate the CA issued, the
 * client presents its own and checks that the server is the service it meant to call (its SPIFFE
 * ID, whatever address it was reached at). One file watcher per transport re-reads the files
 * every `reloadMs` (grpc-js's certificate provider): renewed certificates apply to new connections.
 */
export class MutualTlsTransport {
  readonly kind = 'mtls';
  /** This service's identity, read from its own certificate. */
  readonly identity: ServiceIdentity;
  private provider: experimental.FileWatcherCertificateProvider | undefined;

  constructor(readonly files: MutualTlsFiles) {
    this.identity = readOwnIdentity(files);
  }

  serverCredentials(): ServerCredentials {
    const provider = this.certificates();
    return experimental.createCertificateProviderServerCredentials(provider, provider, true);
  }

  /**
   * Resolves once the files have been read. A server binds after it: grpc-js drops every
   * connection a certificate-provider server takes before its first read completes.
   */
  async whenLoaded(): Promise<void> {
    const provider = this.certificates();
    let ca = false;
    let identity = false;
    await new Promise<void>((resolve) => {
      const settle = (): void => {
        if (!ca || !identity) return;
        provider.removeCaCertificateListener(onCa);
        provider.removeIdentityCertificateListener(onIdentity);
        resolve();
      };
      const onCa = (update: unknown): void => {
        ca = update !== null;
        settle();
      };
      const onIdentity = (update: unknown): void => {
        identity = update !== null;
        settle();
      };
      provider.addCaCertificateListener(onCa);
      provider.addIdentityCertificateListener(onIdentity);
    });
  }

  /** Credentials for calling `server` (its identity name, e.g. `orchestrator`) in the same trust domain. */
  channelCredentials(server: string): ChannelCredentials {
    const provider = this.certificates();
    const expected = spiffeId({ trustDomain: this.identity.trustDomain, name: server });
    return experimental.createCertificateProviderChannelCredentials(provider, provider, {
      checkServerIdentity: (_host: string, certificate: PeerCertificate) => {
        const identity = identityInSubjectAltName(certificate.subjectaltname);
        if (identity && spiffeId(identity) === expected) return undefined;
        return Object.assign(
          new Error(
            `the server at this address is ${identity ? spiffeId(identity) : 'no platform service'}, not ${expected}`,
          ),
          { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
        );
      },
    });
  }

  private certificates(): experimental.FileWatcherCertificateProvider {
    this.provider ??= new experimental.FileWatcherCertificateProvider({
      caCertificateFile: this.files.caFile,
      certificateFile: this.files.certFile,
      privateKeyFile: this.files.keyFile,
      refreshIntervalMs: this.files.reloadMs ?? 60_000,
    });
    return this.provider;
  }
}

/** No TLS and no caller checks: only by the explicit dev switch (GRPC_INSECURE_PLAINTEXT). */
export class PlaintextTransport {
  readonly kind = 'plaintext';
  readonly identity = undefined;

  serverCredentials(): ServerCredentials {
    return ServerCredentials.createInsecure();
  }

  whenLoaded(): Promise<void> {
    return Promise.resolve();
  }

  channelCredentials(_server: string): ChannelCredentials {
    return credentials.createInsecure();
  }
}

/** How a service's gRPC servers and clients talk: mutual TLS, or plaintext by the dev switch. */
export type GrpcTransport = MutualTlsTransport | PlaintextTransport;

function readOwnIdentity(files: MutualTlsFiles): ServiceIdentity {
  const read = (file: 'caFile' | 'certFile' | 'keyFile'): Buffer => {
    try {
      return readFileSync(files[file]);
    } catch (err) {
      throw new TransportFileError(
        file,
        `cannot read '${files[file]}': ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
  };
  const parse = (file: 'caFile' | 'certFile', pem: Buffer): X509Certificate => {
    try {
      return new X509Certificate(pem);
    } catch (err) {
      throw new TransportFileError(file, `'${files[file]}' holds no PEM certificate: ${(err as Error).message}`);
    }
  };
  const ca = parse('caFile', read('caFile'));
  const own = parse('certFile', read('certFile'));
  if (!read('keyFile').toString('utf8').includes('PRIVATE KEY-----'))
    throw new TransportFileError('keyFile', `'${files.keyFile}' holds no PEM private key`);
  if (!own.checkIssued(ca) || !own.verify(ca.publicKey))
    throw new TransportFileError('certFile', `'${files.certFile}' was not issued by the CA in '${files.caFile}'`);
  const identity = identityInSubjectAltName(own.subjectAltName);
  if (!identity)
    throw new TransportFileError(
      'certFile',
      `'${files.certFile}' carries no single spiffe://<trust-domain>/<service> URI SAN`,
    );
  return identity;
}
