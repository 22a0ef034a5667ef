import { linkSignals } from '@platform/agent-loop';
import { compileEgressAllowlist, EgressGuard, type HostResolver } from '@platform/egress';
import { cutText } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import { defineTool, ToolFailure, type ToolDefinition } from '@platform/tool-sdk';
import { z } from 'zod';
import { checkTarget, networkFailure, openPage, type OpenedPage } from './fetch-page.js';
import { describeAllowlist, parseAllowlist, type HostRule } from './host-allowlist.js';
import { htmlToText } from './html-to-text.js';
import { bodyKind, decodeText, parseContentType, readLimited } from './response-body.js';

/** Text returned when the call does not ask for a size: about 5k tokens, plenty for most pages. */
const DEFAULT_MAX_CHARS = 20_000;
/** Upper bound for `maxChars`, so one call cannot blow past the runner's result size limit by much. */
const MAX_CHARS_LIMIT = 100_000;
/** A non-2xx body is context for the status, not content: only its start is returned. */
const ERROR_EXCERPT_CHARS = 2_000;

/** How `web_fetch` is configured (from the WEB_FETCH_* variables). */
export interface WebFetchSettings {
  /** Allowlist entries: `host`, `host:port`, `*.domain`, `*.domain:port`. */
  allowedHosts: readonly string[];
  /** Most body bytes read per response; the rest is never read. */
  maxBytes: number;
  /** Deadline of a whole call (all redirects and the body); also the tool's published timeout. */
  timeoutMs: number;
  /** Redirects followed before giving up; each hop is checked against the allowlist. */
  maxRedirects: number;
  /** Further internal hosts and ranges reached on purpose (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS). */
  egressAllow?: { hosts: readonly string[]; cidrs: readonly string[] };
  /** Resolves host names (tests); default the system resolver. */
  resolve?: HostResolver;
}

/**
 * The egress guard of `web_fetch`: an entry listed exactly (`docs.internal`, `127.0.0.1:8080`) is
 * the operator's deliberate choice and reached whatever it resolves to; a host matched by a
 * wildcard (`*.example.com`) must resolve to public addresses only, so a subdomain that points
 * inside (internal DNS, a rebind) is not reached.
 */
function webFetchEgress(rules: readonly HostRule[], settings: WebFetchSettings): EgressGuard {
  // Exact entries are allowed as hosts, also address literals: `127.0.0.1:8080` opens that literal,
  // not every name that resolves to it.
  const exact = rules.filter((rule) => rule.kind === 'exact').map((rule) => rule.host.replace(/^\[(.*)\]$/, '$1'));
  const hosts = [...exact, ...(settings.egressAllow?.hosts ?? [])];
  const cidrs = [...(settings.egressAllow?.cidrs ?? [])];
  return new EgressGuard({
    allowlist: compileEgressAllowlist({ EGRESS_ALLOW_HOSTS: hosts, EGRESS_ALLOW_CIDRS: cidrs }),
    connectTimeoutMs: settings.timeoutMs,
    ...(settings.resolve ? { resolve: settings.resolve } : {}),
  });
}

const WebFetchInput = z.object({
  url: z
    .string()
    .min(1)
    .max(2_048)
    .describe('Absolute http(s) URL on an allowed host, e.g. "https://docs.example.com/page"'),
  maxChars: z
    .number()
    .int()
    .min(1)
    .max(MAX_CHARS_LIMIT)
    .optional()
    .describe(`Most characters of text to return (default ${DEFAULT_MAX_CHARS})`),
});

const WebFetchOutput = z.object({
  url: z.string(),
  status: z.number().int(),
  contentType: z.string(),
  text: z.string(),
  truncated: z.boolean(),
  bytes: z.number().int().nonnegative(),
});
type WebFetchOutput = z.infer<typeof WebFetchOutput>;

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw new ToolFailure(
      `'${raw.slice(0, 200)}' is not an absolute URL (expected e.g. "https://example.com/page")`,
      'invalid',
    );
  }
}

/** Reads the opened page within the limits and turns it into the tool's output. */
async function readPage(
  page: OpenedPage,
  settings: WebFetchSettings,
  maxChars: number,
  signal: AbortSignal,
  logger: Logger,
): Promise<WebFetchOutput> {
  const { response, url } = page;
  const { mediaType, charset } = parseContentType(response.headers.get('content-type'));
  const kind = bodyKind(mediaType);
  const ok = response.status >= 200 && response.status < 300;
  if (kind === undefined) {
    await response.body?.cancel().catch(() => undefined);
    if (ok)
      throw new ToolFailure(
        `${url.href} returned content of type '${mediaType || '(none)'}'; this tool reads only text, HTML, JSON and XML`,
      );
    // An error status matters more than its unreadable body: report it.
    return { url: url.href, status: response.status, contentType: mediaType, text: '', truncated: false, bytes: 0 };
  }
  let body;
  try {
    body = await readLimited(response.body, settings.maxBytes);
  } catch (err) {
    if (signal.aborted) throw err;
    throw networkFailure(err, url, logger, 'reading the body');
  }
  const decoded = decodeText(body.data, charset, body.truncated);
  const readable = kind === 'html' ? htmlToText(decoded) : decoded;
  const { text, cut } = cutText(readable, ok ? maxChars : Math.min(maxChars, ERROR_EXCERPT_CHARS));
  return {
    url: url.href,
    status: response.status,
    contentType: mediaType,
    text,
    truncated: body.truncated || cut,
    bytes: body.data.byteLength,
  };
}

/**
 * `web_fetch`: GETs a page from an allowlisted host and returns its readable text. Opt-in
 * (WEB_FETCH_ENABLED): it is the only built-in tool that reaches the network.
 */
export function webFetchTool(settings: WebFetchSettings): ToolDefinition {
  const rules = parseAllowlist(settings.allowedHosts);
  if (rules.length === 0) throw new Error('web_fetch needs at least one allowed host');
  const egress = webFetchEgress(rules, settings);
  const maxKiB = Math.floor(settings.maxBytes / 1024);
  return defineTool({
    name: 'web_fetch',
    description:
      `Fetches a URL with HTTP GET and returns its text: HTML pages as readable plain text (scripts, styles and markup removed); JSON, XML and plain text as is. ` +
      `It may fetch ONLY these hosts: ${describeAllowlist(rules)}. Any other host is refused, also when a redirect leads there. ` +
      `http and https only, no user:password in URLs; images, PDFs and other binary content are refused. ` +
      `Bodies over ${maxKiB} KiB and text over maxChars (default ${DEFAULT_MAX_CHARS}) are cut and marked truncated: true. ` +
      `A non-2xx status is returned (with the start of the body), not raised as an error.`,
    input: WebFetchInput,
    output: WebFetchOutput,
    timeoutMs: settings.timeoutMs,
    sideEffect: 'none',
    version: '1.0.0',
    handler: async ({ url, maxChars = DEFAULT_MAX_CHARS }, context) => {
      const start = parseUrl(url);
      const refusal = checkTarget(start, rules);
      if (refusal) throw new ToolFailure(refusal.message, 'invalid');
      // Our own timer as well as the call's signal: the deadline holds even when the handler is run
      // outside the runner, and the model gets a clear message instead of a bare abort.
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('web_fetch timed out')), settings.timeoutMs);
      const linked = linkSignals([context.signal, timeout.signal]);
      const { signal } = linked;
      try {
        const page = await openPage(start, {
          rules,
          egress,
          maxRedirects: settings.maxRedirects,
          signal,
          logger: context.logger,
        });
        return await readPage(page, settings, maxChars, signal, context.logger);
      } catch (err) {
        if (err instanceof ToolFailure || !signal.aborted) throw err;
        if (timeout.signal.aborted)
          throw new ToolFailure(`fetching ${start.href} timed out after ${settings.timeoutMs} ms`);
        throw new ToolFailure(`fetching ${start.href} was stopped: the call was cancelled or reached its deadline`);
      } finally {
        clearTimeout(timer);
        linked.dispose();
      }
    },
  });
}
