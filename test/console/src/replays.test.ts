// "Replay from step" on a run's page in a real browser (Debian's headless Chromium) against the
// running platform: a finished run with a calculator call is replayed from the step after the
// tool result; the replay's page opens, names the run it replays, and the original lists it.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser.js';
import { bootConsolePlatform, type ConsolePlatform } from './support/platform.js';
import { signIn } from './support/sign-in.js';

const TENANT = 'console-replays';

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

it('replays a run from the step after its tool result and opens the replay', async () => {
  const turn = await stack.api<{ runId: string; response: string }>(
    'POST',
    '/v1/conversations/console-replay-1/messages',
    TENANT,
    { content: '[scenario:calculator] what is 12 * (3 + 4)?' },
  );
  expect(turn.status).toBe(200);
  const original = turn.body.runId;
  await page.goto(`${stack.consoleUrl}/runs/${original}`);
  await page.getByRole('heading', { name: 'Replay from step' }).waitFor();
  // Step 2 is the run's answer: the control offers to go live from it at the latest (fromStep 1).
  const steps = page.getByLabel('Replay live from');
  expect(await steps.locator('option').allTextContents()).toEqual(['Step 1', 'Step 2']);
  await steps.selectOption({ label: 'Step 2' });
  await page.getByRole('button', { name: 'Replay' }).click();

  await page.waitForURL((url) => url.pathname.includes('/runs/') && !url.pathname.endsWith(original));
  await page.getByRole('link', { name: original }).waitFor();
  expect(await page.getByText('live from step 2').count()).toBe(1);
  await page.getByText('12 * (3 + 4) = 84.').first().waitFor();
  const replay = page.url().split('/').pop()!;
  await browser.screenshot('run-replay');

  const listed = await stack.api<{ replays: string[] }>('GET', `/v1/runs/${original}`, TENANT);
  expect(listed.body.replays).toEqual([replay]);
  await page.goto(`${stack.consoleUrl}/runs/${original}`);
  await page.getByRole('link', { name: replay }).waitFor();
});
