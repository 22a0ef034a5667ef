// Starts the example travel runner (examples/travel-runner) for a suite, with its own outbox.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ManagedProcess } from '@platform/testing';
import { api, startRunnerProcess, type SuitePlatform } from './support.js';

export interface TravelRunner {
  outbox: string;
  /** The emails written so far, oldest first (the outbox has one JSON file per sent email). */
  emails(): Promise<Array<{ recipient: string; subject: string; body: string }>>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Stores a tenant's mail account token as an app does after its OAuth flow: `send_email` sends from it. */
export async function connectMailAccount(platform: SuitePlatform, tenant: string): Promise<void> {
  const stored = await api(platform, 'PUT', '/v1/credentials/google/primary', tenant, {
    secret: { access_token: `ya29.e2e-${tenant}` },
  });
  if (stored.status !== 200)
    throw new Error(`could not connect ${tenant}'s mail account: ${JSON.stringify(stored.body)}`);
}

export async function startTravelRunner(platform: SuitePlatform): Promise<TravelRunner> {
  const outbox = await mkdtemp(path.join(os.tmpdir(), 'outbox-'));
  let proc: ManagedProcess | undefined;
  const start = async (): Promise<void> => {
    proc = await startRunnerProcess(platform, 'travel-runner', 'examples/travel-runner/src/main.ts', {
      OUTBOX_DIR: outbox,
      LOG_LEVEL: 'warn',
      CREDENTIAL_ADDRESS: `127.0.0.1:${platform.ports.credential}`,
      ...(await platform.pki.env('runner/travel')),
    });
  };
  await start();
  return {
    outbox,
    async emails() {
      const files = (await readdir(outbox)).filter((f) => f.endsWith('.json'));
      const records = await Promise.all(
        files.map(
          async (f) =>
            JSON.parse(await readFile(path.join(outbox, f), 'utf8')) as {
              to: string;
              subject: string;
              body: string;
              queuedAt: string;
            },
        ),
      );
      return records
        .sort((a, b) => a.queuedAt.localeCompare(b.queuedAt))
        .map((r) => ({ recipient: r.to, subject: r.subject, body: r.body }));
    },
    async restart() {
      await proc?.stop();
      await start();
    },
    async stop() {
      await proc?.stop();
      await rm(outbox, { recursive: true, force: true });
    },
  };
}
