import { readFileSync } from 'node:fs';
import type { Tree } from '@nx/devkit';
import { createTreeWithEmptyWorkspace } from '@nx/devkit/testing';
import { format, type Options } from 'prettier';

/** The workspace's Prettier settings, as `prettier --check` and `formatFiles` apply them. */
export const workspacePrettierConfig = JSON.parse(
  readFileSync(new URL('../../../../../.prettierrc.json', import.meta.url), 'utf8'),
) as Options;

/**
 * An empty in-memory workspace formatted by Prettier with the workspace's settings, as the real one
 * is. The tree lives at `/virtual`, where Prettier finds no config file on disk, so the settings go
 * in as the tree's `.prettierrc`, which `formatFiles` reads from the tree.
 */
export function createPrettierWorkspace(): Tree {
  const tree = createTreeWithEmptyWorkspace({ formatter: 'none' });
  tree.write('.prettierrc', JSON.stringify(workspacePrettierConfig));
  return tree;
}

/** Formats text the way `prettier --write` formats the file at `filepath` in the workspace. */
export function formatLikeWorkspace(text: string, filepath: string): Promise<string> {
  return format(text, { ...workspacePrettierConfig, filepath });
}
