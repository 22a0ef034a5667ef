import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch, type Dispatcher, type RequestInit, type Response } from 'undici';
import { classifyAddress } from './address-class.js';
import type { EgressAllowlist } from './egress-env.js';
import { guardedConnector } from './guarded-connector.js';
import { resolveWithin, systemResolver, type HostResolver, type ResolvedAddress } from './host-resolver.js';
import { EgressRefusedError } from './refusal.js';

/** What an `EgressGuard` needs: the operator's allowlist, and optionally its own resolver and limits. */
export interface EgressGuardOptions {
  allowlist: EgressAllowlist;
  /** Defaults to the system resolver; tests inject one. */
  resolve?: HostResolver;
  /** How long one resolution may take (default 5000 ms); longer is `unresolved`. */
  resolveTimeoutMs?: number;
  /** How long opening one connection may take (default 10000 ms). */
  connectTimeoutMs?: number;
  /** Certificate authorities trusted instead of Node's (an internal receiver's private CA, tests). */
  ca?: string | Buffer;
}

/** A fetch through the guard: no `dispatcher` (the guard's own is used) and redirects are never followed. */
export type GuardedRequestInit = Omit<RequestInit, 'dispatcher' | 'redirect'>;

const SCHEMES = new Set(['http:', 'https:']);

function bareHost(hostname: string): string {
  const unbracketed = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return unbracketed.toLowerCase().replace(/\.$/, '');
}

/** `localhost` and every name under it are loopback by definition (RFC 6761), whatever DNS says. */
function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The one egress guard (docs/security.md, egress rules): every outbound URL a tenant can set is
 * checked with `checkUrl` when it is created, and reached only through `fetch` / `dispatcher()`,
 * whose connections are vetted again when they open and pinned to the address that was vetted.
 */
export class EgressGuard {
  private readonly resolver: HostResolver;
  private readonly resolveTimeoutMs: number;
  private agent: Agent | undefined;

  constructor(private readonly options: EgressGuardOptions) {
    this.resolver = options.resolve ?? systemResolver;
    this.resolveTimeoutMs = options.resolveTimeoutMs ?? 5_000;
  }

  /** The URL's shape only: http(s), no user name or password. No resolution. */
  parseUrl(url: string | URL): URL {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch (err) {
      throw new EgressRefusedError('invalid_url', { cause: err });
    }
    if (!SCHEMES.has(parsed.protocol)) throw new EgressRefusedError('scheme');
    if (parsed.username || parsed.password) throw new EgressRefusedError('userinfo');
    if (!parsed.hostname) throw new EgressRefusedError('invalid_url');
    return parsed;
  }

  /**
   * Checks a URL when a tenant sets it: its shape, then every address its host resolves to.
   * Resolves with the parsed URL; rejects with `EgressRefusedError` naming the reason.
   */
  async checkUrl(url: string | URL): Promise<URL> {
    const parsed = this.parseUrl(url);
    await this.vetHost(parsed.hostname);
    return parsed;
  }

  /**
   * The addresses a host may be reached at: an address literal is judged as it is; a name is
   * resolved and refused when any of its addresses is refused (a name that answers one public
   * and one internal address would reach inside on some connections). Allowlisted names (an
   * address literal listed as a host opens that literal only) and ranges pass.
   */
  async vetHost(hostname: string): Promise<ResolvedAddress[]> {
    const name = bareHost(hostname);
    const family = isIP(name);
    const allowedName = this.options.allowlist.allowsHost(name);
    if (family !== 0) {
      const literal: ResolvedAddress = { address: name, family: family === 6 ? 6 : 4 };
      return [allowedName ? literal : this.vetAddress(literal)];
    }
    if (!allowedName && isLocalhostName(name)) throw new EgressRefusedError('loopback');
    let answers: ResolvedAddress[];
    try {
      answers = await resolveWithin(this.resolver, name, this.resolveTimeoutMs);
    } catch (err) {
      throw new EgressRefusedError('unresolved', { cause: err });
    }
    if (answers.length === 0) throw new EgressRefusedError('unresolved');
    return allowedName ? answers : answers.map((answer) => this.vetAddress(answer));
  }

  private vetAddress(answer: ResolvedAddress): ResolvedAddress {
    if (this.options.allowlist.allowsAddress(answer.address)) return answer;
    const reason = classifyAddress(answer.address);
    if (reason) throw new EgressRefusedError(reason);
    return answer;
  }

  /**
   * An undici dispatcher whose every connection is vetted when it opens (`vetHost`) and made to
   * the vetted address by number, so a DNS answer that changes between check and connect cannot
   * switch it; TLS SNI and certificate verification still use the host name. Created once.
   */
  dispatcher(): Dispatcher {
    const tls = this.options.ca === undefined ? {} : { ca: this.options.ca };
    this.agent ??= new Agent({
      connect: guardedConnector((hostname) => this.vetHost(hostname), {
        timeout: this.options.connectTimeoutMs ?? 10_000,
        ...tls,
      }),
    });
    return this.agent;
  }

  /**
   * `fetch` through the guard: the URL's shape is checked, the connection vetted and pinned, and
   * redirects are never followed (a 3xx is answered as it is; a caller that follows one calls
   * `fetch` again, so the new target is vetted too).
   */
  async fetch(url: string | URL, init: GuardedRequestInit = {}): Promise<Response> {
    const target = this.parseUrl(url);
    return undiciFetch(target, { ...init, redirect: 'manual', dispatcher: this.dispatcher() });
  }

  /** Closes the dispatcher's connections. */
  async close(): Promise<void> {
    await this.agent?.close();
    this.agent = undefined;
  }
}
