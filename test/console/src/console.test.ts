// The web console in a real browser (Debian's headless Chromium) against the running platform:
// sign in, chat with a streamed answer, read the run and its tool call, approve a waiting action
// and see its run complete, try a tool from its form, find runs by tool, and be refused another
// tenant's run. Screenshots of the main pages go to test/console/artifacts/ (git-ignored).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchConsoleBrowser, PHONE, LAPTOP, type ConsoleBrowser } from './support/browser.js';
import { bootConsolePlatform, TRACE_URL_TEMPLATE, type ConsolePlatform } from './support/platform.js';
import { signIn as signInAs } from './support/sign-in.js';

const TENANT = 'console-acme';
const OTHER_TENANT = 'console-globex';

let stack: ConsolePlatform;
let browser: ConsoleBrowser;
let page: Page;
/** The run of the chat's first message (set by the chat test, read by those after it). */
let chatRunId = '';

beforeAll(async () => {
  stack = await bootConsolePlatform();
  browser = await launchConsoleBrowser();
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const signIn = (tenant: string, roles: string[] = []): Promise<void> => signInAs(page, stack, tenant, roles);

/** Goes to a console page by its path (client routing from the address bar, as a bookmark would). */
async function open(path: string): Promise<void> {
  await page.goto(`${stack.consoleUrl}${path}`);
}

describe('the web console', () => {
  it("asks for a token, then shows the token's tenant", async () => {
    await page.goto(`${stack.consoleUrl}/runs`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await browser.screenshot('sign-in');
    await page.getByLabel('Bearer token (JWT)').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('three parts');

    // A token the api refuses: the page says so and offers to sign in again.
    await page.getByLabel('Bearer token (JWT)').fill(await stack.forgedTokenFor(TENANT));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'INVALID_TOKEN' }).waitFor();
    await page.getByRole('button', { name: 'Sign in again' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();

    await signIn(TENANT);
    expect(await page.getByTestId('tenant').textContent()).toBe(TENANT);
    await page.getByText('No runs match.').waitFor();
  });

  it('sends a message and shows the answer as it streams in, with its tool calls folded', async () => {
    await open('/conversations');
    await page.getByLabel('Conversation id').fill('console-chat');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('No messages yet.').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('What is (17 + 25) * 3, and what time is it in Tokyo?');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByTestId('live-answer').or(page.locator('.bubble.assistant').last());
    await page.locator('.bubble.assistant', { hasText: '(17 + 25) * 3 = 126' }).waitFor();
    expect(await answer.first().textContent()).toContain('126');
    const folded = page.locator('.bubble.assistant details.folded').last();
    expect(await folded.locator('summary').textContent()).toContain('calculator');
    await folded.locator('summary').click();
    await browser.screenshot('conversation');
    const runLink = page.locator('.bubble.assistant').last().getByRole('link', { name: 'run' });
    chatRunId = ((await runLink.getAttribute('href')) ?? '').split('/').pop() ?? '';
    expect(chatRunId).toMatch(/^run_/);
  });

  it('renames and labels a conversation, then finds it by search and filters', async () => {
    expect(
      (await stack.api('POST', '/v1/conversations/console-other/messages', TENANT, { content: '[scenario:plain] hi' }))
        .status,
    ).toBe(200);
    await open('/conversations/console-chat');
    await page.getByRole('button', { name: 'Rename or label' }).click();
    await page.getByLabel('Title', { exact: true }).fill('Tokyo maths');
    await page.getByLabel('Labels (comma-separated)').fill('maths, travel');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('conversation-title').filter({ hasText: 'Tokyo maths' }).waitFor();

    await open('/conversations');
    const rows = page.getByTestId('conversation-row');
    await rows.filter({ hasText: 'console-other' }).waitFor();
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    await page.getByLabel('Title contains').fill('TOKYO');
    await page.getByRole('button', { name: 'Find' }).click();
    await rows.filter({ hasText: 'Tokyo maths' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 1);
    await page.getByLabel('Title contains').fill('');
    await page.getByLabel('Label').fill('travel');
    await page.getByLabel('Waiting for the user').selectOption('false');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 1);
    expect(await rows.first().textContent()).toContain('maths, travel');
    await page.getByLabel('Label').fill('no-such-label');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByText('No conversation matches.').waitFor();
  });

  it('opens the run: its transcript shows the tool call with arguments, result, status and runner', async () => {
    await open(`/runs/${chatRunId}`);
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    expect(await page.locator('.facts').first().textContent()).toContain('completed');
    // The console's chat sends through the REST API, and the run says so.
    expect(await page.getByTestId('run-protocol').textContent()).toBe('REST API');
    const call = page.getByTestId('tool-call').filter({ hasText: 'calculator' });
    await call.locator('summary').click();
    const text = await call.textContent();
    expect(text).toContain('success');
    expect(text).toContain('runner');
    expect(text).toContain('(17 + 25) * 3');
    expect(text).toContain('126');
    expect(
      await page
        .getByText(/Request view: \d+ messages/)
        .first()
        .isVisible(),
    ).toBe(true);
    const trace = page.getByRole('link', { name: /^[0-9a-f]{32}$/ });
    if (await trace.count())
      expect(await trace.getAttribute('href')).toContain(TRACE_URL_TEMPLATE.replace('{traceId}', ''));
    await browser.screenshot('run');
  });

  it('follows a running run live, and cancels it', async () => {
    // A slow model answer keeps the run running while the page is open (the message is sent as an app would).
    const sent = stack.api('POST', '/v1/conversations/console-slow/messages', TENANT, {
      content: '[scenario:slow] Take your time.',
    });
    let runId = '';
    while (!runId) {
      const listed = await stack.api<{ runs: Array<{ runId: string; status: string }> }>(
        'GET',
        '/v1/runs?conversationId=console-slow',
        TENANT,
      );
      runId = listed.body.runs.find((r) => r.status === 'running')?.runId ?? '';
      if (!runId) await new Promise((r) => setTimeout(r, 100));
    }
    await open(`/runs/${runId}`);
    await page.getByRole('heading', { name: 'Live events' }).waitFor();
    await page.getByTestId('event-log').getByText('execution_start').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByText('The run finished.').waitFor();
    await page.locator('.facts').first().getByText('cancelled').first().waitFor();
    expect((await sent).body).toMatchObject({ status: 'cancelled' });
  });

  it('offers a policy when sending while a run is in flight: rolling it back keeps nothing of it', async () => {
    await signIn(TENANT);
    await open('/conversations/console-multitask');
    await page.getByLabel('Message', { exact: true }).fill('[scenario:slow] Take your time.');
    await page.getByRole('button', { name: 'Send' }).click();
    // The slow answer is on its way: the choice shows while the run is in flight.
    await page.getByLabel('While a run is in flight').selectOption('rollback');
    await page.getByLabel('Message', { exact: true }).fill('[scenario:plain] Never mind.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.assistant', { hasText: 'You said' }).waitFor();
    const history = await stack.api<{ messages: Array<{ message: { content?: string } }> }>(
      'GET',
      '/v1/conversations/console-multitask/messages',
      TENANT,
    );
    expect(history.body.messages.map((m) => m.message.content ?? '').join('\n')).not.toContain('Take your time');
    expect(history.body.messages).toHaveLength(2);
  });

  it('finds the run by the tool it called, and not by another', async () => {
    await open('/runs?tool=calculator');
    await page.getByRole('link', { name: chatRunId }).waitFor();
    await browser.screenshot('runs');
    await open('/runs?tool=send_email');
    await page.getByText('No runs match.').waitFor();
  });

  it('filters runs by the protocol their message came in by', async () => {
    await open('/runs?tool=calculator');
    await page.getByLabel('Protocol').selectOption({ label: 'REST API' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: chatRunId }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: chatRunId }).textContent()).toContain('REST API');
    await page.getByLabel('Protocol').selectOption({ label: 'MCP' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No runs match.').waitFor();
  });

  it('approves a waiting action from the inbox, and the run completes', async () => {
    // What an application does after its OAuth flow: the user's mail account is connected.
    const connected = await stack.api('PUT', '/v1/credentials/google/primary', TENANT, {
      secret: { access_token: 'ya29.console-test' },
    });
    expect(connected.status).toBe(200);
    await open('/conversations/console-trip');
    await page
      .getByLabel('Message', { exact: true })
      .fill('[scenario:travel-trip] Plan my NYC trip next Friday and email the team.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.assistant', { hasText: /approv/i }).waitFor();

    await page.getByRole('link', { name: 'Approvals' }).click();
    const card = page.getByTestId('approval');
    await card.waitFor();
    expect(await card.textContent()).toContain('team@example.com');
    expect(await card.getByLabel('time left').textContent()).toMatch(/expires in \d+:\d\d/);
    expect(await card.textContent()).toContain('console-trip');
    await browser.screenshot('approvals');
    await card.getByRole('button', { name: 'Approve' }).click();
    const decided = page.getByTestId('decided');
    await decided.waitFor();
    expect(await decided.textContent()).toContain('completed');
    await page.getByText('Nothing waits for a decision.').waitFor();

    await decided.getByRole('link').click();
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    expect(await page.locator('.facts').first().textContent()).toContain('completed');
  });

  it('approves an action with changes, edited as JSON', async () => {
    await open('/conversations/console-trip-edit');
    await page
      .getByLabel('Message', { exact: true })
      .fill('[scenario:travel-trip] Plan my NYC trip and email the team, please.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.assistant', { hasText: /approv/i }).waitFor();
    await open('/approvals');
    const card = page.getByTestId('approval').filter({ hasText: 'console-trip-edit' });
    await card.getByRole('button', { name: 'Edit' }).click();
    const changes = card.getByLabel('Changes (JSON: the fields to change)');
    await changes.fill('{ "subject": "NYC trip (edited)" ');
    await card.getByRole('button', { name: 'Approve with changes' }).click();
    expect(await card.getByRole('alert').textContent()).toContain('not valid JSON');
    await changes.fill('{ "subject": "NYC trip (edited)" }');
    await card.getByRole('button', { name: 'Approve with changes' }).click();
    await page.getByTestId('decided').filter({ hasText: 'completed' }).waitFor();
  });

  it('shows the connected account (never its secret) and its audit trail', async () => {
    await open('/accounts');
    await page.getByRole('cell', { name: 'google' }).first().waitFor();
    const body = (await page.locator('main').textContent()) ?? '';
    expect(body).not.toContain('ya29.console-test');
    expect(body).toContain('send_email');
    await browser.screenshot('accounts');
  });

  it("lists the catalog with runner replicas and breaker state, and tries a tool from its schema's form", async () => {
    await open('/tools');
    const calculator = page.locator('.card', { hasText: 'calculator' }).first();
    await calculator.locator('summary').first().click();
    expect(await calculator.textContent()).toContain('breaker closed');
    expect(await calculator.getByRole('table').textContent()).toContain('Requests');
    await calculator.getByRole('button', { name: 'Run calculator' }).click();
    expect(await calculator.getByText('expression is required').isVisible()).toBe(true);
    await calculator.getByLabel('expression').fill('6 * 7');
    await calculator.getByRole('button', { name: 'Run calculator' }).click();
    const outcome = calculator.getByTestId('tool-outcome');
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain('success');
    expect(await outcome.textContent()).toContain('42');
    await browser.screenshot('tools');
    const email = page.locator('.card', { hasText: 'send_email' }).first();
    await email.locator('summary').first().click();
    expect(await email.textContent()).toContain('runs only in a conversation');
  });

  it('shows usage per day as a chart; pauses, resumes and runs a task now, with its fire history', async () => {
    const task = await stack.api('POST', '/v1/tasks', TENANT, {
      name: 'morning digest',
      trigger: { type: 'schedule', cron: '0 8 * * *', timeZone: 'Europe/Paris' },
      executor: 'orchestrator',
      action: { instruction: 'Summarize my unread emails' },
    });
    expect(task.status).toBe(201);
    await open('/usage');
    await page.getByRole('img', { name: /Turns and tokens per day/ }).waitFor();
    await browser.screenshot('usage');
    await open('/tasks');
    const card = page.locator('.card', { has: page.getByRole('heading', { name: /morning digest/ }) });
    expect(await card.textContent()).toContain('cron 0 8 * * * (Europe/Paris)');
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByRole('button', { name: 'Run now' }).click();
    await card.getByText('Fire history').click();
    await card.getByRole('cell', { name: 'manual' }).waitFor();
    // The fire's row follows it until it is done, with the run it started.
    await card.getByRole('cell', { name: 'succeeded' }).waitFor();
    expect(await card.getByRole('row').nth(1).getByRole('link').getAttribute('href')).toMatch(/\/runs\/run_/);
    await browser.screenshot('tasks');
  });

  it('shows what memory learned, with provenance and the fact a move superseded, and forgets a fact', async () => {
    // Two turns as an app sends them; memory learns from them off the turn's path.
    for (const content of [
      '[scenario:memory-chat] Hi, I live in Paris.',
      '[scenario:memory-chat] I moved from Paris to Berlin last month.',
    ]) {
      expect((await stack.api('POST', '/v1/conversations/console-memory/messages', TENANT, { content })).status).toBe(
        200,
      );
    }
    // Forgetting memory is for the tenant's admins (docs/access.md#roles).
    await signIn(TENANT, ['admin']);
    await open('/memory');
    const berlin = page.getByRole('row').filter({ hasText: 'Berlin' });
    const paris = page.getByRole('row').filter({ hasText: 'Paris' });
    // Learning is asynchronous: show the facts again until both are there.
    while ((await berlin.count()) === 0 || !((await paris.textContent()) ?? '').includes('superseded')) {
      await page.getByRole('button', { name: 'Show facts' }).click();
      await page.waitForFunction(
        () =>
          ![...document.querySelectorAll('[role="status"]')].some((status) =>
            status.textContent?.startsWith('Loading'),
          ),
      );
    }
    expect(await berlin.textContent()).toContain('current');
    expect(await berlin.getByRole('link', { name: 'console-memory' }).count()).toBe(1);
    await browser.screenshot('memory');
    page.once('dialog', (dialog) => void dialog.accept());
    await berlin.getByRole('button', { name: /^Forget/ }).click();
    await berlin.waitFor({ state: 'detached' });
  });

  it('labels every form control, marks its landmarks on the main pages, and skips to the content from the keyboard', async () => {
    for (const path of [
      '/runs',
      '/conversations/console-chat',
      '/approvals',
      '/tools',
      '/tasks',
      '/memory',
      '/accounts',
      '/usage',
    ]) {
      await open(path);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForFunction(
        () =>
          ![...document.querySelectorAll('[role="status"]')].some((status) =>
            status.textContent?.startsWith('Loading'),
          ),
      );
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea')]
          .filter(
            (control) =>
              (control as HTMLInputElement).labels?.length === 0 &&
              !control.getAttribute('aria-label') &&
              !control.getAttribute('aria-labelledby'),
          )
          .map((control) => control.outerHTML.slice(0, 80)),
      );
      expect({ path, unlabelled }).toEqual({ path, unlabelled: [] });
      for (const landmark of ['banner', 'navigation', 'main'] as const)
        expect(await page.getByRole(landmark).count(), `${path} ${landmark}`).toBe(1);
    }
    // The keyboard's first stop skips to the content.
    await open('/runs');
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });

  it('adds a model connection, shows only the end of its key, rotates the key and deletes it', async () => {
    // Model connections are written by the tenant's admins (docs/access.md).
    await signIn(TENANT, ['admin']);
    await open('/model-connections');
    await page.getByText('No model connection yet.').waitFor();
    const form = page.getByRole('form', { name: 'Add a model connection' });
    // A URL that reaches inside the network is refused, with the reason.
    await form.getByLabel('Name').fill('console-llm');
    await form.getByLabel('Base URL').fill('http://10.0.0.1/v1');
    await form.getByLabel('API key').fill('sk-console-FIRST-key-1234');
    await form.getByRole('button', { name: 'Add connection' }).click();
    await form.getByRole('alert').filter({ hasText: 'EGRESS_REFUSED' }).waitFor();
    await form.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
    await form.getByRole('button', { name: 'Add connection' }).click();
    const row = page.getByRole('row').filter({ hasText: 'console-llm' });
    await row.getByText('…1234').waitFor();
    expect(await page.locator('main').textContent()).not.toContain('FIRST');
    expect(await form.getByLabel('API key').inputValue()).toBe('');
    await browser.screenshot('model-connections');

    await row.getByRole('button', { name: 'Rotate key' }).click();
    await row.getByLabel('New API key').fill('sk-console-SECOND-key-9876');
    await row.getByRole('button', { name: 'Save key' }).click();
    await row.getByText('…9876').waitFor();
    const listed = await stack.api<{ connections: Array<{ name: string; version: number }> }>(
      'GET',
      '/v1/model-connections',
      TENANT,
    );
    expect(listed.body.connections).toEqual([expect.objectContaining({ name: 'console-llm', version: 2 })]);

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Delete console-llm' }).click();
    await page.getByText('No model connection yet.').waitFor();
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize(PHONE);
    await open('/conversations/console-chat');
    await page.locator('.bubble.assistant', { hasText: '126' }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await browser.screenshot('conversation-phone');
    await page.setViewportSize(LAPTOP);
  });

  it("refuses another tenant's run: it is answered as one that does not exist", async () => {
    await signIn(OTHER_TENANT);
    await open(`/runs/${chatRunId}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('RUN_NOT_FOUND');
    await browser.screenshot('other-tenant-refused');
  });

  it('shows a member no admin page, and an admin the keys and the audit', async () => {
    await signIn(TENANT);
    const nav = page.getByRole('navigation', { name: 'Console' });
    expect(await page.getByTestId('role').textContent()).toBe('member');
    expect(await nav.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    expect(await nav.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await open('/keys');
    await page.getByText('This page is not for your role.').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);

    await signIn(TENANT, ['admin']);
    expect(await page.getByTestId('role').textContent()).toBe('admin');
    await nav.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByLabel('Key name').fill('console backend');
    await page.getByLabel('Key role').selectOption('member');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-key').locator('pre').textContent()) ?? '';
    expect(secret).toMatch(/^plk_[0-9a-f]{16}_/);
    const row = page.getByRole('row').filter({ hasText: 'console backend' });
    await row.waitFor();
    expect(await row.textContent()).not.toContain(secret.slice('plk_'.length + 17));
    await browser.screenshot('api-keys');
    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: 'Revoke console backend' }).click();
    await row.getByText(/^revoked/).waitFor();

    await nav.getByRole('link', { name: 'Audit' }).click();
    await page.getByTestId('audit-row').filter({ hasText: 'revokeApiKey' }).waitFor();
    expect(await page.getByTestId('audit-row').filter({ hasText: 'createApiKey' }).count()).toBeGreaterThan(0);
    await browser.screenshot('audit');
  });

  it('lets an operator view a tenant read-only', async () => {
    await signIn('console-ops', ['platform-operator']);
    await page.getByLabel('View tenant (read-only)').fill(TENANT);
    await page.getByRole('button', { name: 'View' }).click();
    await page.getByRole('link', { name: chatRunId }).waitFor();
    expect(await page.getByText('read-only').first().isVisible()).toBe(true);
    await open('/conversations/console-chat');
    await page.locator('.bubble.assistant', { hasText: '126' }).waitFor();
    expect(await page.getByLabel('Message', { exact: true }).count()).toBe(0);
  });
});
