// Conversations in a real browser (Debian's headless Chromium) against the running platform: fork a
// conversation at a message (the fork opens with the history up to it) and edit a message into a
// fork; set a conversation's run webhook, whose delivery the run's page lists; delete a
// conversation after the confirmation (dismissing it keeps the conversation). The webhook receiver
// is a real HTTP server on loopback, which this suite's orchestrator admits.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser.js';
import { bootConsolePlatform, type ConsolePlatform } from './support/platform.js';
import { signIn } from './support/sign-in.js';

const TENANT = 'console-conversations';

let stack: ConsolePlatform;
let browser: ConsoleBrowser;
let page: Page;
let receiver: Server;
let receiverUrl: string;
/** The paths the receiver was POSTed to, in order. */
const received: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.url ?? '/');
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await bootConsolePlatform({
    RUN_WEBHOOK_ALLOW_HTTP: 'true',
    EGRESS_ALLOW_CIDRS: '127.0.0.1/32',
    RUN_WEBHOOK_INTERVAL_MS: '50',
  });
  browser = await launchConsoleBrowser();
  page = browser.page;
  await signIn(page, stack, TENANT);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

async function open(path: string): Promise<void> {
  await page.goto(`${stack.consoleUrl}${path}`);
}

/** Sends a message through the api, as the signed-in user; answers its run id. */
async function say(conversationId: string, content: string): Promise<string> {
  const sent = await stack.api<{ runId: string }>('POST', `/v1/conversations/${conversationId}/messages`, TENANT, {
    content,
  });
  expect(sent.status).toBe(200);
  return sent.body.runId;
}

const bubbles = () => page.getByRole('list', { name: 'Messages' }).locator('.bubble');
/** The user's message holding `text` (the plain scenario's answer repeats it). */
const asked = (text: string) => bubbles().and(page.locator('.user')).filter({ hasText: text });

describe('conversations in the console', () => {
  it('forks a conversation at a message: the fork opens with the history up to it', async () => {
    await say('console-forked', '[scenario:plain] the first question');
    await say('console-forked', '[scenario:plain] the second question');
    await open('/conversations/console-forked');
    await asked('the second question').waitFor();
    expect(await bubbles().count()).toBe(4);
    // "Fork from here" on the first answer: a new conversation holding the first exchange only.
    await bubbles().nth(1).getByRole('button', { name: 'Fork from here' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/console-forked'));
    await asked('the first question').waitFor();
    expect(await bubbles().count()).toBe(2);
    expect(await page.getByRole('list', { name: 'Messages' }).textContent()).not.toContain('the second question');
    const forkId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    expect(forkId).not.toBe('console-forked');
    // The parent is as it was.
    await open('/conversations/console-forked');
    await asked('the second question').waitFor();
    expect(await bubbles().count()).toBe(4);

    // "Edit" on the second question: a fork just before it, the edited text ready in the composer.
    const second = asked('the second question');
    await second.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Edited message').fill('[scenario:plain] the second question, reworded');
    await page.getByRole('button', { name: 'Open in a fork' }).click();
    await page.waitForURL((url) => !url.pathname.endsWith('/console-forked'));
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe(
      '[scenario:plain] the second question, reworded',
    );
    await asked('the first question').waitFor();
    expect(await bubbles().count()).toBe(2);
  });

  it("sets a conversation's run webhook; the run's page lists the delivery", async () => {
    await say('console-hooked', '[scenario:plain] before the webhook');
    await open('/conversations/console-hooked');
    await page.getByRole('button', { name: 'Run webhook' }).click();
    await page.getByLabel(/^Webhook URL/).fill('http://10.0.0.7/inside');
    await page.getByRole('form', { name: 'Run webhook' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'EGRESS_REFUSED' }).waitFor();
    await page.getByLabel(/^Webhook URL/).fill(`${receiverUrl}/console-hook?token=abc`);
    await page.getByRole('form', { name: 'Run webhook' }).getByRole('button', { name: 'Save' }).click();
    // Shown redacted: whoever reaches the conversation reads it.
    expect(await page.getByTestId('conversation-webhook').textContent()).toBe(
      `Run webhook: ${receiverUrl}/console-hook?token=[redacted]`,
    );

    // A message sent from the console names no webhook: its run's end goes to the conversation's.
    await page.getByLabel('Message', { exact: true }).fill('[scenario:plain] after the webhook');
    await page.getByRole('button', { name: 'Send' }).click();
    const runsOf = async () =>
      (
        await stack.api<{ runs: Array<{ runId: string; status: string }> }>(
          'GET',
          '/v1/runs?conversationId=console-hooked&pageSize=50',
          TENANT,
        )
      ).body.runs;
    // Newest first: the console's message, then the one before the webhook.
    await expect
      .poll(async () => (await runsOf()).map((r) => r.status), { timeout: 60_000 })
      .toEqual(['completed', 'completed']);
    const [after, before] = await runsOf();
    const runId = after!.runId;
    // The run's page lists what there is when it loads: it is opened once the delivery is made.
    await expect
      .poll(
        async () => {
          const listed = await stack.api<{ deliveries: Array<{ status: string }> }>(
            'GET',
            `/v1/runs/${runId}/webhook-deliveries`,
            TENANT,
          );
          return listed.body.deliveries.map((d) => d.status);
        },
        { timeout: 60_000 },
      )
      .toEqual(['delivered']);
    expect(received).toEqual(['/console-hook?token=abc']);
    await open(`/runs/${runId}`);
    const table = page.getByRole('table', { name: "Webhook deliveries of the run's end" });
    const row = table.locator('tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('completed');
    expect(cells[2]).toContain('delivered');
    expect(cells[3]).toBe('1');
    expect(cells[7]).toBe(`${receiverUrl}/console-hook?token=[redacted]`);

    // The run before the webhook was set named none.
    await open(`/runs/${before!.runId}`);
    await page.getByText('The run named no webhook.').waitFor();
  });

  it('deletes a conversation only once confirmed; it then leaves the list', async () => {
    await say('console-doomed', '[scenario:plain] delete me');
    await say('console-kept', '[scenario:plain] keep me');
    const rowOf = (id: string) => page.getByTestId('conversation-row').filter({ hasText: id });
    await open('/conversations');
    await rowOf('console-doomed').waitFor();

    await open('/conversations/console-doomed');
    await asked('delete me').waitFor();
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Delete conversation' }).click();
    expect(question).toContain('console-doomed');
    expect(await page.getByRole('button', { name: 'Delete conversation' }).isEnabled()).toBe(true);
    expect(await page.getByRole('status').count()).toBe(0);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete conversation' }).click();
    // Once the deletion completes the console goes back to the list, which no longer has it.
    await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor({ timeout: 60_000 });
    await rowOf('console-kept').waitFor();
    expect(await rowOf('console-doomed').count()).toBe(0);
    const gone = await stack.api('GET', '/v1/conversations/console-doomed', TENANT);
    expect(gone.status).toBe(404);
  });
});
