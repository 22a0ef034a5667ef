import { randomBytes } from 'node:crypto';
import type { Principal } from './model.js';
import { passwordVariable } from './render-config.js';

/** A fresh random password per user (32 random bytes, base64url). */
export function generatePasswords(principals: readonly Principal[]): Record<string, string> {
  return Object.fromEntries(principals.map((p) => [p.name, randomBytes(32).toString('base64url')]));
}

/**
 * Kubernetes Secrets for the passwords: `<user>-nats` with NATS_USER / NATS_PASSWORD for each
 * service or runner (referenced by its Deployment), and `nats-server-auth` with every
 * `NATS_PASSWORD_<USER>` for the nats-server pod (the generated configuration reads them).
 */
export function renderSecretsYaml(
  principals: readonly Principal[],
  passwords: Readonly<Record<string, string>>,
  namespace?: string,
): string {
  const meta = (name: string): string[] => [
    'metadata:',
    `  name: ${name}`,
    ...(namespace ? [`  namespace: ${namespace}`] : []),
    '  labels:',
    '    app.kubernetes.io/part-of: agent-platform',
  ];
  const secret = (name: string, data: Array<[string, string]>): string =>
    [
      'apiVersion: v1',
      'kind: Secret',
      ...meta(name),
      'type: Opaque',
      'stringData:',
      ...data.map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    ].join('\n');
  const passwordOf = (user: string): string => {
    const password = passwords[user];
    if (!password) throw new Error(`no password for NATS user '${user}'`);
    return password;
  };
  const documents = [
    secret(
      'nats-server-auth',
      principals.map((p) => [passwordVariable(p.name), passwordOf(p.name)]),
    ),
    ...principals.map((p) =>
      secret(`${p.name}-nats`, [
        ['NATS_USER', p.name],
        ['NATS_PASSWORD', passwordOf(p.name)],
      ]),
    ),
  ];
  return `${documents.join('\n---\n')}\n`;
}

/** `KEY=value` lines (a dotenv file) for one user, e.g. for a runner outside Kubernetes. */
export function renderEnvFile(user: string, password: string): string {
  return `NATS_USER=${user}\nNATS_PASSWORD=${password}\n`;
}
