// Debian's Chromium (scripts/ensure-binaries.sh installs it), driven headless by playwright-core:
// no browser download, a fresh profile per run.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots of the main pages, kept as test artifacts (git-ignored). */
const ARTIFACTS_DIR = path.resolve(import.meta.dirname, '../../artifacts');

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page screenshot as `<name>.png` in the artifacts folder. */
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

export async function launchConsoleBrowser(): Promise<ConsoleBrowser> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'console-chromium-'));
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  // playwright passes the profile as --user-data-dir (a fresh one per run).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: LAPTOP,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async screenshot(name, target = page) {
      const file = path.join(ARTIFACTS_DIR, `${name}.png`);
      await target.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
