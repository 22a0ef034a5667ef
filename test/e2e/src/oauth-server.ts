// A real OAuth 2.1 authorization server for the MCP authorization test: `oidc-provider` on a free
// loopback port, with dynamic client registration (MCP clients register themselves), PKCE and
// resource indicators (RFC 8707: the MCP endpoint is the resource a token is for). Its access
// tokens for a resource are JWTs signed with its RS256 key (published at `jwksUrl`) and carry the
// `tenant` claim the api reads (apps/api/src/auth.ts), from the signed-in account. The sign-in and
// consent pages are oidc-provider's own development interactions, which `signIn` fills in.
import { createServer } from 'node:http';
import { freePort } from '@platform/testing';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

/** The scope a client asks for (the platform defines none; this authorization server needs one to grant). */
export const MCP_SCOPE = 'mcp';

export interface AuthorizationServer {
  /** The issuer URL (its metadata at /.well-known/openid-configuration). */
  issuer: string;
  /** Its signing keys (JWKS). */
  jwksUrl: string;
  stop(): Promise<void>;
}

/** `accounts`: the tenant of each account id a user may sign in as. */
export async function startAuthorizationServer(accounts: Record<string, string> = {}): Promise<AuthorizationServer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const tenantOf = (accountId: string | undefined): string | undefined =>
    accountId !== undefined && Object.hasOwn(accounts, accountId) ? accounts[accountId] : undefined;
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'e2e' }] },
    // The scope the MCP resource's tokens are issued for (oidc-provider grants nothing without one).
    scopes: ['openid', 'offline_access', MCP_SCOPE],
    findAccount: (_ctx, sub) => (tenantOf(sub) === undefined ? undefined : { accountId: sub, claims: () => ({ sub }) }),
    extraTokenClaims: (_ctx, token) => {
      const tenant = tenantOf('accountId' in token ? token.accountId : undefined);
      return tenant === undefined ? undefined : { tenant };
    },
    features: {
      // The sign-in (any account id) and consent forms, at /interaction/:uid.
      devInteractions: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: MCP_SCOPE,
          audience: resource,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  const handle = provider.callback();
  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Cookies by name, as a browser keeps them for the authorization server (one origin, every path). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) <= Date.now());
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * What the user's browser does with the authorization URL an MCP client sent it to: follows the
 * redirects by hand, signs in as `accountId` and consents on the authorization server's forms,
 * and stops at the redirect back to the client, returning the authorization code it carries.
 */
export async function signIn(authorizationUrl: URL, redirectUrl: string, accountId: string): Promise<string> {
  const jar = new CookieJar();
  let next = authorizationUrl.href;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const response = await fetch(next, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    jar.take(response);
    form = undefined;
    const location = response.headers.get('location');
    if (location) {
      const target = new URL(location, next);
      if (target.href.startsWith(redirectUrl)) {
        const error = target.searchParams.get('error');
        if (error)
          throw new Error(
            `the authorization server refused: ${error} (${target.searchParams.get('error_description')})`,
          );
        const code = target.searchParams.get('code');
        if (!code) throw new Error(`the redirect back carries no code: ${target.href}`);
        return code;
      }
      next = target.href;
      continue;
    }
    if (response.status !== 200)
      throw new Error(`the authorization server answered ${response.status}: ${await response.text()}`);
    // An interaction page: the sign-in form, or the consent form; submit it as the user would.
    const page = await response.text();
    const prompt = /name="prompt" value="([a-z]+)"/.exec(page)?.[1];
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (!prompt || !action) throw new Error(`not a sign-in or consent page: ${page.slice(0, 300)}`);
    form = new URLSearchParams(prompt === 'login' ? { prompt, login: accountId, password: 'e2e' } : { prompt });
    next = new URL(action, next).href;
  }
  throw new Error('the authorization server never redirected back to the client');
}
