import { egressRefusalOf, type EgressGuard } from '@platform/egress';
import type { Response } from 'undici';
import type { Logger } from '@platform/service-kit';
import { ToolFailure } from '@platform/tool-sdk';
import { describeAllowlist, findAllowingRule, type HostRule } from './host-allowlist.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const REQUEST_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/json,application/xml;q=0.9,text/*;q=0.8,*/*;q=0.1',
  'user-agent': 'platform-tool-runner-web-fetch/1.0',
};

/** Why a URL may not be fetched: its scheme, credentials in it, or a host not on the allowlist. */
export interface Refusal {
  readonly kind: 'scheme' | 'credentials' | 'host';
  /** Model-facing explanation. */
  readonly message: string;
}

/**
 * Checks a URL before any request: http(s) only, no credentials (they would be sent to the server
 * and could end up in logs and prompts), and a host on the allowlist. Undefined when it may be fetched.
 */
export function checkTarget(url: URL, rules: readonly HostRule[]): Refusal | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'scheme', message: `only http and https URLs can be fetched, not '${url.protocol}'` };
  }
  if (url.username || url.password)
    return { kind: 'credentials', message: 'URLs with a user name or password are not fetched' };
  if (!findAllowingRule(rules, url)) {
    return {
      kind: 'host',
      message: `'${url.host}' is not on this tool's allowlist; it may fetch only: ${describeAllowlist(rules)}`,
    };
  }
  return undefined;
}

const REDIRECT_REFUSALS: Readonly<Record<Refusal['kind'], string>> = {
  scheme: 'a URL with a scheme other than http or https',
  credentials: 'a URL with a user name or password',
  host: 'a host that is not on the allowlist',
};

/** The first code found on an error, its cause chain or an AggregateError's first member. */
function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current instanceof AggregateError ? (current.errors as unknown[])[0] : current.cause;
  }
  return undefined;
}

function describeCode(code: string | undefined, host: string): string {
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name '${host}' could not be resolved`;
  if (code === 'ECONNREFUSED') return `${host} refused the connection`;
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET')
    return `${host} closed the connection unexpectedly`;
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `connecting to ${host} timed out`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${host} is unreachable from here`;
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET/.test(code))
    return `the TLS certificate of ${host} was not accepted`;
  return `a network error occurred talking to ${host}`;
}

/**
 * A model-facing failure for a network error. The underlying error (which may name resolved
 * addresses, proxies or internal hops) goes to the log only; the message names just the host
 * the model asked for (or an allowed host a redirect led to).
 */
export function networkFailure(err: unknown, url: URL, logger: Logger, during = 'fetching'): ToolFailure {
  const refused = egressRefusalOf(err);
  if (refused) {
    // Which address it resolved to stays out of the message: it would map the inside for the model.
    logger.info({ url: url.href, reason: refused.reason }, 'web_fetch refused a host that resolves inside');
    return new ToolFailure(`could not fetch ${url.href}: ${url.host} ${EGRESS_REASON_TEXT}`);
  }
  logger.warn({ err, url: url.href }, `web_fetch network error while ${during}`);
  return new ToolFailure(`could not fetch ${url.href}: ${describeCode(errorCode(err), url.host)}`);
}

const EGRESS_REASON_TEXT =
  'resolves to an address that is not public (loopback, private, link-local or metadata); web_fetch reaches such hosts only when they are listed exactly';

/** What `openPage` needs besides the URL. */
export interface OpenPageOptions {
  rules: readonly HostRule[];
  /** Every request goes through it: vetted and pinned when it connects, no redirect followed by fetch itself. */
  egress: EgressGuard;
  maxRedirects: number;
  signal: AbortSignal;
  logger: Logger;
}

/** A response whose body is still unread, and the URL it finally came from. */
export interface OpenedPage {
  response: Response;
  url: URL;
}

/**
 * GETs `start` and follows redirects by hand (`redirect: 'manual'`), checking every hop against
 * the same rules as the first URL: letting fetch follow them would let an allowed host bounce the
 * request anywhere. Abort errors pass through unchanged for the caller to classify.
 */
export async function openPage(start: URL, options: OpenPageOptions): Promise<OpenedPage> {
  let url = start;
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await options.egress.fetch(url, { method: 'GET', headers: REQUEST_HEADERS, signal: options.signal });
    } catch (err) {
      if (options.signal.aborted) throw err;
      throw networkFailure(err, url, options.logger);
    }
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return { response, url };
    // The redirect's own body is never shown; cancel it so the connection is released.
    await response.body?.cancel().catch(() => undefined);
    if (redirects >= options.maxRedirects)
      throw new ToolFailure(`${start.href} redirected more than ${options.maxRedirects} times; not following further`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolFailure(`${url.href} redirected to an invalid URL`);
    }
    const refusal = checkTarget(next, options.rules);
    if (refusal) {
      // The target stays out of the message: it may name an internal host the model should not learn.
      options.logger.info({ from: url.href, to: next.href }, 'web_fetch refused a redirect');
      throw new ToolFailure(
        `${url.href} redirected to ${REDIRECT_REFUSALS[refusal.kind]}; the redirect was not followed`,
      );
    }
    url = next;
  }
}
