import { webcrypto } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';

/** The trust domain of the local stack and tests: identities are `spiffe://agent-platform/<service>`. */
const LOCAL_TRUST_DOMAIN = 'agent-platform';

/** The PEM files one service points GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE at. */
export interface ServiceCertificateFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** A private CA that issues one certificate per service identity, on first ask, into its folder. */
export interface ServicePki {
  readonly trustDomain: string;
  readonly dir: string;
  readonly caFile: string;
  /** The files of `name`'s certificate (e.g. `orchestrator`, `runner/travel`), issued once. */
  issue(name: string): Promise<ServiceCertificateFiles>;
  /** The GRPC_TLS_* variables of a process that runs as `name`. */
  env(name: string): Promise<Record<string, string>>;
}

export interface ServicePkiOptions {
  /** Where the PEM files go (created when missing). */
  dir: string;
  trustDomain?: string;
  /** Days the CA and certificates are valid (default 30; the local stack makes new ones per start). */
  validDays?: number;
}

const ECDSA_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
type CryptoKey = webcrypto.CryptoKey;

/**
 * A node:crypto WebCrypto key handed to @peculiar/x509, whose declarations name the global key
 * types: those are the DOM library's where a project compiles with it (the console's browser
 * tests import this file), and differ there from node:crypto's types of the same objects.
 */
const forX509 = <T>(key: T): never => key as never;

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ECDSA_P256, true, ['sign', 'verify']);
}

/**
 * @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect metadata
 * polyfill first: both load here, when a CA is made, not when this library is imported.
 */
async function loadX509(): Promise<typeof X509> {
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

async function privateKeyPem(x509: typeof X509, key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A certificate's SANs: its SPIFFE ID, and the names a local client may dial it by. */
function subjectAltNames(trustDomain: string, name: string): X509.JsonGeneralNames {
  return [
    { type: 'url', value: `spiffe://${trustDomain}/${name}` },
    ...(name.includes('/') ? [] : [{ type: 'dns' as const, value: name }]),
    { type: 'dns', value: 'localhost' },
    { type: 'ip', value: '127.0.0.1' },
  ];
}

/**
 * Makes a private CA (ECDSA P-256, with @peculiar/x509 over Node's WebCrypto, `globalThis.crypto`: no `openssl` binary,
 * a few milliseconds per certificate) and returns an issuer of per-service certificates.
 */
export async function createServicePki(options: ServicePkiOptions): Promise<ServicePki> {
  const x509 = await loadX509();
  const trustDomain = options.trustDomain ?? LOCAL_TRUST_DOMAIN;
  const validDays = options.validDays ?? 30;
  mkdirSync(options.dir, { recursive: true });
  const notBefore = new Date(Date.now() - 60 * 60_000);
  const notAfter = new Date(Date.now() + validDays * 24 * 60 * 60_000);
  const caKeys = await keyPair();
  const caName = `CN=${trustDomain} local CA`;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: caName,
    keys: forX509(caKeys),
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(forX509(caKeys.publicKey)),
    ],
  });
  const caFile = join(options.dir, 'ca.pem');
  writeFileSync(caFile, ca.toString('pem'));
  const issued = new Map<string, Promise<ServiceCertificateFiles>>();

  const issueNow = async (name: string): Promise<ServiceCertificateFiles> => {
    const keys = await keyPair();
    const certificate = await x509.X509CertificateGenerator.create({
      subject: `CN=${name}`,
      issuer: ca.subject,
      publicKey: forX509(keys.publicKey),
      signingKey: forX509(caKeys.privateKey),
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
        new x509.SubjectAlternativeNameExtension(subjectAltNames(trustDomain, name)),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    const base = join(options.dir, name.replaceAll('/', '_'));
    const files = { caFile, certFile: `${base}.pem`, keyFile: `${base}-key.pem` };
    writeFileSync(files.keyFile, await privateKeyPem(x509, keys.privateKey), { mode: 0o600 });
    writeFileSync(files.certFile, certificate.toString('pem'));
    return files;
  };

  const issue = (name: string): Promise<ServiceCertificateFiles> => {
    let files = issued.get(name);
    if (!files) issued.set(name, (files = issueNow(name)));
    return files;
  };
  return {
    trustDomain,
    dir: options.dir,
    caFile,
    issue,
    async env(name) {
      const files = await issue(name);
      return { GRPC_TLS_CA_FILE: files.caFile, GRPC_TLS_CERT_FILE: files.certFile, GRPC_TLS_KEY_FILE: files.keyFile };
    },
  };
}

let shared: Promise<ServicePki> | undefined;

/**
 * The test process's own CA, made once (every launcher and in-process server of this process
 * shares it) in a temporary folder removed when the process exits.
 */
export function sharedServicePki(): Promise<ServicePki> {
  if (!shared) {
    const dir = mkdtempSync(join(tmpdir(), 'platform-pki-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    shared = createServicePki({ dir });
  }
  return shared;
}

/**
 * The certificate files of an in-process server or client that runs as `name`, from the process's
 * shared CA: `new MutualTlsTransport(await testCertificates('api'))` (service-kit).
 */
export async function testCertificates(name: string): Promise<ServiceCertificateFiles> {
  return (await sharedServicePki()).issue(name);
}
