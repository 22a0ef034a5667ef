// The agent editor in a real browser (Debian's headless Chromium) against the running platform:
// create an agent from the form generated from the AgentSpec schema, see a refusal on the field it
// names, save a draft, try the draft in a message, publish it, roll back.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser.js';
import { bootConsolePlatform, type ConsolePlatform } from './support/platform.js';
import { signIn } from './support/sign-in.js';

const TENANT = 'console-agents';

let stack: ConsolePlatform;
let browser: ConsoleBrowser;
let page: Page;

beforeAll(async () => {
  stack = await bootConsolePlatform();
  browser = await launchConsoleBrowser();
  page = browser.page;
  await signIn(page, stack, TENANT, ['developer']);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const activeVersion = () => page.getByTestId('active-version').textContent();

describe('the agent editor', () => {
  it('creates an agent from the form, after showing a refusal on the field it names', async () => {
    await page.getByRole('link', { name: 'Agents', exact: true }).click();
    await page.getByText('Show deleted agents').waitFor();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByLabel(/^name/).fill('console bot!');
    await page.getByLabel(/^instructions/).fill('You are version one.');
    await page.getByRole('button', { name: 'Save and publish' }).click();
    // The api's INVALID_AGENT_SPEC, with the issue on the name field.
    await page.getByRole('alert').filter({ hasText: 'INVALID_AGENT_SPEC' }).waitFor();
    expect(await page.locator('#agent-name-error').textContent()).toContain('letters');

    await page.getByLabel(/^name/).fill('console-bot');
    await page.getByRole('button', { name: 'Save and publish' }).click();
    await page.getByRole('heading', { name: /Agent console-bot/ }).waitFor();
    expect(await activeVersion()).toBe('v1');
    await browser.screenshot('agent');
  });

  it('saves a draft, tries it in a message, publishes it and rolls back', async () => {
    await page.getByLabel(/^instructions/).fill('You are the draft.');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.getByTestId('agent-version').filter({ hasText: 'v2' }).filter({ hasText: 'draft' }).waitFor();
    expect(await activeVersion()).toBe('v1');

    await page.getByLabel('Version to try').selectOption('2');
    await page.getByLabel('Message to try').fill('Hello, draft');
    await page.getByRole('button', { name: 'Try it' }).click();
    const answer = page.getByTestId('try-answer');
    await answer.waitFor();
    expect(await answer.textContent()).toContain('v2');
    // The run ran under the draft, as the api records it.
    const runId = ((await answer.getByRole('link', { name: 'run' }).getAttribute('href')) ?? '').split('/').pop()!;
    const run = await stack.api<{ agent: { version: number } }>('GET', `/v1/runs/${runId}`, TENANT);
    expect(run.body.agent.version).toBe(2);

    await page.getByLabel('Compare version').selectOption('1');
    await page.getByLabel('with version').selectOption('2');
    await page.getByRole('button', { name: 'Show changes' }).click();
    const change = page.getByTestId('diff-change').filter({ hasText: 'instructions' });
    await change.waitFor();
    expect(await change.textContent()).toContain('You are the draft.');

    await page.getByRole('button', { name: 'Publish v2' }).click();
    await page.getByTestId('active-version').filter({ hasText: 'v2' }).waitFor();
    await page.getByRole('button', { name: 'Roll back' }).click();
    await page.getByTestId('active-version').filter({ hasText: 'v1' }).waitFor();
    const agent = await stack.api<{ activeVersion: number; latestVersion: number }>(
      'GET',
      '/v1/agents/console-bot',
      TENANT,
    );
    expect(agent.body).toMatchObject({ activeVersion: 1, latestVersion: 2 });
    await browser.screenshot('agent-versions');
  });

  it('shows a stale write as STALE_REVISION when someone else wrote meanwhile', async () => {
    const read = await fetch(`${stack.platform.apiUrl}/v1/agents/console-bot`, {
      headers: { authorization: `Bearer ${await stack.tokenFor(TENANT, ['developer'])}` },
    });
    // Another writer (an application) writes v3 behind the page's back.
    const other = await fetch(`${stack.platform.apiUrl}/v1/agents/console-bot`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${await stack.tokenFor(TENANT, ['developer'])}`,
        'content-type': 'application/json',
        'if-match': read.headers.get('etag')!,
      },
      body: JSON.stringify({ name: 'console-bot', instructions: 'Written elsewhere.' }),
    });
    expect(other.status).toBe(200);
    await page.getByLabel(/^instructions/).fill('Written in the console.');
    await page.getByRole('button', { name: 'Save and publish' }).click();
    await page.getByRole('alert').filter({ hasText: 'STALE_REVISION' }).waitFor();
  });
});
