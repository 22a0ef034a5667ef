import { egressEnv } from '@platform/egress';
import { env, loggingEnv, natsEnv, shutdownEnv } from '@platform/service-kit';
import { z } from 'zod';
import { HostPatternError, parseHostPattern } from './tools/web-fetch/host-allowlist.js';

/** Every allowlist entry must parse; the error names the entry so the operator can fix it. */
function checkHostPatterns(entries: string[], ctx: z.RefinementCtx): void {
  for (const entry of entries) {
    try {
      parseHostPattern(entry);
    } catch (err) {
      if (!(err instanceof HostPatternError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
    }
  }
}

/** Environment of the built-in tool runner. */
export const RunnerConfig = z
  .object({
    /** NATS_URL, and NATS_USER + NATS_PASSWORD, NATS_TOKEN or NATS_CREDS_FILE when the server authenticates. */
    ...natsEnv,
    /** Service name in discovery; replicas share it. */
    RUNNER_NAME: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default('builtin-tools'),
    RUNNER_MAX_CONCURRENCY: env.positiveInt().default(64),
    TOOL_MAX_RESULT_BYTES: env.positiveInt().default(256 * 1024),
    CALCULATOR_MAX_EXPRESSION_LENGTH: env.positiveInt().default(500),
    /** Serve `web_fetch`. Off by default: it is the only built-in tool that reaches the network. */
    WEB_FETCH_ENABLED: env.boolean().default(false),
    /**
     * Comma list of the hosts `web_fetch` may reach: `example.com`, `*.example.com` (subdomains
     * only), each with an optional `:port` (without one, only 80/443). Required when enabled.
     */
    WEB_FETCH_ALLOWED_HOSTS: env.list().superRefine(checkHostPatterns).default([]),
    /** Most body bytes `web_fetch` reads per response; longer bodies are cut (`truncated: true`). */
    WEB_FETCH_MAX_BYTES: env.positiveInt().default(512 * 1024),
    /** Deadline of one `web_fetch` call, redirects and body included; also its published timeout. */
    WEB_FETCH_TIMEOUT_MS: env.positiveInt().default(10_000),
    /** Redirects `web_fetch` follows (each hop re-checked against the allowlist); 0 follows none. */
    WEB_FETCH_MAX_REDIRECTS: env.nonNegativeInt().default(3),
    /**
     * Hosts matched by a wildcard entry must resolve to public addresses (libs/egress); these name
     * internal ones reached on purpose. Entries listed exactly are reached whatever they resolve to.
     */
    ...egressEnv,
    /** How long in-flight calls may finish after SIGTERM. */
    ...shutdownEnv(),
    ...loggingEnv,
  })
  .superRefine((config, ctx) => {
    if (config.WEB_FETCH_ENABLED && config.WEB_FETCH_ALLOWED_HOSTS.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEB_FETCH_ALLOWED_HOSTS'],
        message:
          'required when WEB_FETCH_ENABLED is true: a comma list of hosts web_fetch may reach, e.g. "docs.example.com,*.example.org"',
      });
    }
  });
export type RunnerConfig = z.infer<typeof RunnerConfig>;
