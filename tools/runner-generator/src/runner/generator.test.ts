import { readFileSync } from 'node:fs';
import { addProjectConfiguration, readJson, type Tree } from '@nx/devkit';
import { beforeEach, describe, expect, it } from 'vitest';
import runnerGenerator from './generator.js';
import { ENTRIES_MARKER, RUNNERS_DOC } from './runners-doc.js';
import { createPrettierWorkspace, formatLikeWorkspace } from './test-support/prettier-tree.js';

/** The real list of runners, so the test sees where a new row lands in it. */
const runnersDoc = readFileSync(new URL('../../../../docs/runners.md', import.meta.url), 'utf8');

/**
 * A Markdown text with its table padding taken out (`|  a   | b |` → `| a | b |`, `| --- |` →
 * `|---|`), so a row can be compared by its cells whatever width Prettier padded the columns to.
 */
function unpadTables(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) =>
      line.startsWith('|')
        ? line
            .replace(/ +\|/g, ' |')
            .replace(/\| +/g, '| ')
            .replace(/\| -+ (?=\|)/g, '|---')
        : line,
    )
    .join('\n');
}

let tree: Tree;

beforeEach(() => {
  tree = createPrettierWorkspace();
  tree.write(RUNNERS_DOC, runnersDoc);
});

describe('runner generator', () => {
  it('generates a complete app under apps/<name>', async () => {
    await runnerGenerator(tree, { name: 'weather-tools', description: 'Weather forecasts by city.' });
    const files = tree
      .listChanges()
      .map((c) => c.path)
      .filter((p) => p.startsWith('apps/'))
      .sort();
    expect(files).toEqual(
      [
        'README.md',
        'package.json',
        'project.json',
        'src/config.ts',
        'src/main.ts',
        'src/runner.test.ts',
        'src/runner.ts',
        'src/tools/index.ts',
        'src/tools/weather-tools.test.ts',
        'src/tools/weather-tools.ts',
        'tsconfig.build.json',
        'tsconfig.json',
        'vitest.config.ts',
      ].map((f) => `apps/weather-tools/${f}`),
    );
    for (const file of files) expect(tree.read(file, 'utf-8'), file).not.toMatch(/<%|%>|__\w+__/);
  });

  it('writes project and package files for the workspace conventions', async () => {
    await runnerGenerator(tree, { name: 'weather-tools' });
    expect(readJson(tree, 'apps/weather-tools/project.json')).toEqual({
      name: 'weather-tools',
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      sourceRoot: 'apps/weather-tools/src',
      projectType: 'application',
      tags: ['type:app', 'scope:weather-tools'],
      implicitDependencies: ['telemetry'],
      targets: { build: {}, typecheck: {}, lint: {}, test: {} },
    });
    expect(readJson(tree, 'apps/weather-tools/package.json')).toMatchObject({
      name: '@platform/weather-tools',
      type: 'module',
      main: './dist/main.js',
    });
    expect(readJson(tree, 'apps/weather-tools/tsconfig.json')).toMatchObject({ extends: '../../tsconfig.base.json' });
    // Two-space JSON with a final newline, like the rest of the workspace.
    expect(tree.read('apps/weather-tools/project.json', 'utf-8')).toMatch(
      /^\{\n {2}"name": "weather-tools",\n[\s\S]*\}\n$/,
    );
  });

  it('derives the tool from the name and wires it through config, runner and tests', async () => {
    await runnerGenerator(tree, { name: 'weather-tools' });
    const read = (file: string): string => tree.read(`apps/weather-tools/${file}`, 'utf-8') ?? '';
    expect(read('src/config.ts')).toContain(".default('weather-tools')");
    // NATS_URL and the NATS credentials come from service-kit's shared natsEnv fragment.
    expect(read('src/config.ts')).toContain('...natsEnv,');
    for (const variable of [
      'RUNNER_NAME',
      'RUNNER_MAX_CONCURRENCY',
      'TOOL_MAX_RESULT_BYTES',
      'SHUTDOWN_GRACE_MS',
      'LOG_LEVEL',
    ]) {
      expect(read('src/config.ts')).toContain(`${variable}:`);
    }
    expect(read('src/tools/weather-tools.ts')).toContain("name: 'weather_tools'");
    expect(read('src/tools/weather-tools.ts')).toContain('export function weatherToolsTool(): ToolDefinition');
    expect(read('src/tools/index.ts')).toContain("import { weatherToolsTool } from './weather-tools.js';");
    expect(read('src/main.ts')).toMatch(/runService[\s\S]*connectNats[\s\S]*serveTools/);
    expect(read('src/runner.ts')).toContain('serveRunner(');
    expect(read('src/runner.test.ts')).toContain("toolName: 'weather_tools'");
  });

  it('honours toolName, description and directory', async () => {
    await runnerGenerator(tree, {
      name: 'crm',
      toolName: 'crm_lookup',
      description: "Looks up the customer's record | CRM",
      directory: 'apps/teams/crm/',
    });
    expect(tree.exists('apps/teams/crm/src/tools/crm-lookup.ts')).toBe(true);
    expect(readJson(tree, 'apps/teams/crm/tsconfig.json')).toMatchObject({ extends: '../../../tsconfig.base.json' });
    expect(tree.read('apps/teams/crm/vitest.config.ts', 'utf-8')).toContain("from '../../../vitest.shared.js'");
    // Quotes survive into the TypeScript string literal (which Prettier turns into a double-quoted one).
    expect(tree.read('apps/teams/crm/src/runner.ts', 'utf-8')).toContain(
      'description: "Looks up the customer\'s record | CRM",',
    );
    expect(unpadTables(tree.read(RUNNERS_DOC, 'utf-8')!)).toContain(
      "| [apps/teams/crm](../apps/teams/crm/README.md) | `crm` | `crm_lookup` (sample tool) | Looks up the customer's record \\| CRM |",
    );
  });

  it('adds the runner to the end of the table in docs/runners.md, formatted, and changes nothing else', async () => {
    await runnerGenerator(tree, { name: 'weather-tools', description: 'Weather forecasts by city.' });
    const row =
      '| [apps/weather-tools](../apps/weather-tools/README.md) | `weather-tools` | `weather_tools` (sample tool) | Weather forecasts by city. |';
    const after = tree.read(RUNNERS_DOC, 'utf-8')!;
    // Exactly the doc with the row added after the table's last row, as `prettier --write` leaves it.
    const withRow = runnersDoc.replace(`\n\n${ENTRIES_MARKER}`, `\n${row}\n\n${ENTRIES_MARKER}`);
    expect(withRow).not.toBe(runnersDoc);
    expect(after).toBe(await formatLikeWorkspace(withRow, RUNNERS_DOC));
    // Nothing else changed: one more line, the new row, right after what was the table's last row;
    // the other lines are the same but for the table's padding.
    const before = runnersDoc.split('\n');
    const lines = after.split('\n');
    expect(lines).toHaveLength(before.length + 1);
    const at = lines.findIndex((l) => l.startsWith(ENTRIES_MARKER)) - 2;
    expect(lines[at + 1]).toBe('');
    expect(unpadTables(lines[at]!)).toBe(row);
    expect(lines[at - 1]).toMatch(/^\| \[/);
    expect(unpadTables([...lines.slice(0, at), ...lines.slice(at + 1)].join('\n'))).toBe(unpadTables(runnersDoc));
    expect(lines.filter((l) => !l.startsWith('|'))).toEqual(before.filter((l) => !l.startsWith('|')));
  });

  it('creates docs/runners.md when it is missing', async () => {
    tree.delete(RUNNERS_DOC);
    await runnerGenerator(tree, { name: 'weather-tools' });
    expect(unpadTables(tree.read(RUNNERS_DOC, 'utf-8')!)).toMatch(
      /^# Tool runners\n\n\| Runner \|.*\n\|---\|.*\n\| \[apps\/weather-tools\].*\n\n<!-- runner-entries/,
    );
  });

  it('appends after the last table row when the marker was removed', async () => {
    tree.write(
      RUNNERS_DOC,
      '# Runners\n\n| Runner | a | b | c |\n|---|---|---|---|\n| x | y | z | w |\n\nMore text.\n',
    );
    await runnerGenerator(tree, { name: 'weather-tools' });
    expect(unpadTables(tree.read(RUNNERS_DOC, 'utf-8')!)).toMatch(
      /\| x \| y \| z \| w \|\n\| \[apps\/weather-tools\][^\n]*\n\nMore text\.\n$/,
    );
  });

  it.each([['Weather'], ['weather_tools'], ['-weather'], ['weather--tools'], ['9lives'], [''], ['a'.repeat(65)]])(
    'refuses the invalid name %j',
    async (name) => {
      await expect(runnerGenerator(tree, { name })).rejects.toThrow(/Invalid runner name .*kebab-case/);
      expect(tree.listChanges().filter((c) => c.path.startsWith('apps/'))).toEqual([]);
    },
  );

  it.each([['get weather'], ['a'.repeat(65)], ['tool.name']])('refuses the invalid tool name %j', async (toolName) => {
    await expect(runnerGenerator(tree, { name: 'weather-tools', toolName })).rejects.toThrow(/Invalid tool name/);
  });

  it.each([['../outside'], ['/abs/path'], ['apps/./x'], ['apps//x']])('refuses the directory %j', async (directory) => {
    await expect(runnerGenerator(tree, { name: 'weather-tools', directory })).rejects.toThrow(/Invalid directory/);
  });

  it('refuses an existing directory', async () => {
    tree.write('apps/weather-tools/notes.txt', 'taken');
    await expect(runnerGenerator(tree, { name: 'weather-tools' })).rejects.toThrow(
      "Cannot create the runner in 'apps/weather-tools': it already exists",
    );
    expect(tree.read(RUNNERS_DOC, 'utf-8')).toBe(runnersDoc);
  });

  it('refuses a project name that is taken elsewhere', async () => {
    addProjectConfiguration(tree, 'weather-tools', { root: 'libs/weather-tools' });
    await expect(runnerGenerator(tree, { name: 'weather-tools' })).rejects.toThrow(
      "a project with that name already exists at 'libs/weather-tools'",
    );
  });

  it('rejects a multi-line description', async () => {
    await expect(runnerGenerator(tree, { name: 'weather-tools', description: 'one\ntwo' })).rejects.toThrow(/one line/);
  });
});
