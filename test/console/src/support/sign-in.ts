import type { Page } from 'playwright-core';
import type { ConsolePlatform } from './platform.js';

/**
 * Signs the page in to the console with a token of `tenant` (and its tenant `roles`), signing out
 * first when someone is signed in, and waits for the runs page the console opens on.
 */
export async function signIn(page: Page, stack: ConsolePlatform, tenant: string, roles: string[] = []): Promise<void> {
  await page.goto(`${stack.consoleUrl}/`);
  const signOut = page.getByRole('button', { name: 'Sign out' });
  if (await signOut.isVisible()) await signOut.click();
  await page.getByLabel('Bearer token (JWT)').fill(await stack.tokenFor(tenant, roles));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
}
