#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { RunnerDeclaration } from './model.js';
import { platformPrincipals } from './platform-permissions.js';
import { renderNatsAuthorization } from './render-config.js';
import { parseRunnersFile } from './runner-file.js';
import { generatePasswords, renderSecretsYaml } from './secrets.js';

const USAGE = `usage: platform-nats-config <command> [--runners runners.json]...
  config               print the nats-server authorization section (passwords read from
                       NATS_PASSWORD_<USER> variables of the nats-server process)
  secrets [--namespace ns]
                       print Kubernetes Secrets with fresh random passwords: <user>-nats
                       (NATS_USER, NATS_PASSWORD) per service and runner, and nats-server-auth
  users                list the users and their permissions
  --runners <file>     extra tool runners (JSON: [{"name","tools":[...],"user"?}]), repeatable`;

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      runners: { type: 'string', multiple: true },
      namespace: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const extra: RunnerDeclaration[] = (values.runners ?? []).flatMap((file) =>
    parseRunnersFile(readFileSync(file, 'utf8'), file),
  );
  const principals = platformPrincipals(extra);
  switch (positionals[0]) {
    case 'config':
      process.stdout.write(renderNatsAuthorization(principals, { kind: 'env' }));
      return 0;
    case 'secrets':
      process.stdout.write(renderSecretsYaml(principals, generatePasswords(principals), values.namespace));
      return 0;
    case 'users':
      for (const p of principals)
        process.stdout.write(
          `${p.name} (${p.kind}): ${p.description}\n  publish: ${p.publish.join(' ') || '(replies only)'}\n  subscribe: ${p.subscribe.join(' ')}\n`,
        );
      return 0;
    default:
      process.stderr.write(`unknown command '${positionals[0]}'\n${USAGE}\n`);
      return 2;
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`platform-nats-config: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
