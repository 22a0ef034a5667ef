// The runner's entry in docs/runners.md, the list of every runner in the workspace.

/** Workspace-relative path of the list of runners. */
export const RUNNERS_DOC = 'docs/runners.md';

/**
 * New rows go at the end of the table that ends above this line. Prettier keeps a blank line
 * between the table and the marker, so a row goes above that blank line, not right above the marker.
 */
export const ENTRIES_MARKER =
  '<!-- runner-entries: `npx nx g @platform/runner-generator:runner` inserts new rows above this line -->';

const TABLE_HEADER = ['| Runner | Service name (`RUNNER_NAME`) | Tools | Purpose |', '|---|---|---|---|'];

/**
 * The table row of a runner. Links are relative to docs/.
 * @param {import('./options.js').NormalizedOptions} options
 * @returns {string}
 */
function runnerEntry(options) {
  const cell = (/** @type {string} */ text) => text.replaceAll('|', '\\|');
  return `| [${options.directory}](../${options.directory}/README.md) | \`${options.name}\` | \`${options.toolName}\` (sample tool) | ${cell(options.description)} |`;
}

/**
 * Adds the runner's row to docs/runners.md, creating the file if it is missing. A row that already
 * links to the directory is left alone (a runner regenerated after its folder was deleted).
 * @param {import('@nx/devkit').Tree} tree
 * @param {import('./options.js').NormalizedOptions} options
 * @returns {'added' | 'already listed'}
 */
export function addRunnerEntry(tree, options) {
  const row = runnerEntry(options);
  const current = tree.read(RUNNERS_DOC, 'utf-8');
  if (current === null) {
    tree.write(RUNNERS_DOC, ['# Tool runners', '', ...TABLE_HEADER, row, '', ENTRIES_MARKER, ''].join('\n'));
    return 'added';
  }
  if (current.includes(`](../${options.directory}/`) || current.includes(`](../${options.directory})`))
    return 'already listed';

  const lines = current.split('\n');
  let at = lines.indexOf(ENTRIES_MARKER);
  // Above the blank lines between the table and the marker, so the row joins the table.
  while (at > 0 && lines[at - 1] === '') at -= 1;
  if (at < 0) {
    // Someone removed the marker: append after the table's last row.
    const lastRow = lines.findLastIndex((line) => line.startsWith('|'));
    if (lastRow >= 0) {
      at = lastRow + 1;
    } else {
      // No table at all: start one at the end of the file (before its final newline).
      const end = lines.at(-1) === '' ? lines.length - 1 : lines.length;
      lines.splice(end, 0, '', ...TABLE_HEADER);
      at = end + 1 + TABLE_HEADER.length;
    }
  }
  lines.splice(at, 0, row);
  tree.write(RUNNERS_DOC, lines.join('\n'));
  return 'added';
}
