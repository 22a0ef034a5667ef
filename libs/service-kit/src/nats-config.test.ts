import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadConfig } from './config.js';
import { natsConnectSettings, natsEnv } from './nats-config.js';

const Schema = z.object({ ...natsEnv });

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.variable}: ${p.message}`);
    throw err;
  }
  return [];
}

describe('the shared NATS settings', () => {
  it('connect without authentication by default, to every listed server', () => {
    expect(natsConnectSettings(loadConfig(Schema, {}))).toEqual({ servers: ['nats://127.0.0.1:4222'] });
    expect(natsConnectSettings(loadConfig(Schema, { NATS_URL: 'nats://a:4222, nats://b:4222' })).servers).toEqual([
      'nats://a:4222',
      'nats://b:4222',
    ]);
  });

  it('log in with a user and password, or a token', () => {
    expect(
      natsConnectSettings(loadConfig(Schema, { NATS_USER: 'orchestrator', NATS_PASSWORD: 's3cret' })),
    ).toMatchObject({ user: 'orchestrator', pass: 's3cret' });
    expect(natsConnectSettings(loadConfig(Schema, { NATS_TOKEN: 't0ken' }))).toMatchObject({ token: 't0ken' });
  });

  it("take replies under the user's own inbox (_INBOX.<user>), which its permissions allow; the default inbox otherwise", () => {
    expect(
      natsConnectSettings(loadConfig(Schema, { NATS_USER: 'orchestrator', NATS_PASSWORD: 's3cret' })).inboxPrefix,
    ).toBe('_INBOX.orchestrator');
    expect(natsConnectSettings(loadConfig(Schema, { NATS_TOKEN: 't0ken' })).inboxPrefix).toBeUndefined();
    expect(natsConnectSettings(loadConfig(Schema, {})).inboxPrefix).toBeUndefined();
    expect(
      problemsOf(() => natsConnectSettings(loadConfig(Schema, { NATS_USER: 'team.a', NATS_PASSWORD: 'x' }))),
    ).toEqual([
      'NATS_USER: must be one NATS subject token (letters, digits, - and _): its replies come to _INBOX.<user>',
    ]);
  });

  it('name the variable at fault when the settings contradict each other', () => {
    expect(problemsOf(() => natsConnectSettings(loadConfig(Schema, { NATS_USER: 'api' })))).toEqual([
      'NATS_PASSWORD: required when NATS_USER is set',
    ]);
    expect(problemsOf(() => natsConnectSettings(loadConfig(Schema, { NATS_PASSWORD: 'x' })))).toEqual([
      'NATS_USER: required when NATS_PASSWORD is set',
    ]);
    expect(
      problemsOf(() =>
        natsConnectSettings(loadConfig(Schema, { NATS_USER: 'api', NATS_PASSWORD: 'x', NATS_TOKEN: 't' })),
      )[0],
    ).toMatch(/^NATS_TOKEN: set only one of/);
    expect(
      problemsOf(() => natsConnectSettings(loadConfig(Schema, { NATS_CREDS_FILE: '/nonexistent/user.creds' }))),
    ).toEqual(["NATS_CREDS_FILE: cannot read '/nonexistent/user.creds': ENOENT"]);
    expect(problemsOf(() => natsConnectSettings(loadConfig(Schema, { NATS_URL: ' , ' })))).toEqual([
      'NATS_URL: names no server',
    ]);
  });

  it('read a creds file once at boot', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nats-creds-'));
    try {
      const file = path.join(dir, 'user.creds');
      writeFileSync(file, '-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.x\n------END NATS USER JWT------\n');
      expect(natsConnectSettings(loadConfig(Schema, { NATS_CREDS_FILE: file })).authenticator).toBeTypeOf('function');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
