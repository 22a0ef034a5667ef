// ESLint rule: no import circle inside a package, `import type` included.
// `import-x/no-cycle` (eslint.config.mjs) finds the circles that exist at run time but skips type-only
// imports by design; a circle made of types is still two modules that cannot be understood apart.
// This rule reads each package's relative imports once per ESLint process (a regex over the source,
// `.js` specifiers resolved to the `.ts` files) and reports every import of a module in a circle with
// the linted file, with the way back.
import fs from 'node:fs';
import path from 'node:path';

const IMPORT = /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'gen', 'coverage', '.nx']);
const graphs = new Map(); // package root -> Map<file, Map<specifier, file>>

function packageRoot(file) {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return path.dirname(file);
}

function resolveSpecifier(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
}

function sourceFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_FOLDERS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

function packageGraph(root) {
  let graph = graphs.get(root);
  if (graph) return graph;
  graph = new Map();
  for (const file of sourceFiles(root)) {
    const edges = new Map();
    for (const match of fs.readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolveSpecifier(file, match[1]);
      if (target) edges.set(match[1], target);
    }
    graph.set(file, edges);
  }
  graphs.set(root, graph);
  return graph;
}

/** The shortest way from `start` to `goal` along imports, as files, or undefined when there is none. */
function wayBack(graph, start, goal) {
  const previous = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === goal) {
      const way = [];
      for (let at = file; at !== undefined; at = previous.get(at)) way.unshift(at);
      return way;
    }
    for (const next of graph.get(file)?.values() ?? []) {
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export const noTypeImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import circles inside a package, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import circle: {{way}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file)) return {};
    const root = packageRoot(file);
    const graph = packageGraph(root);
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = graph.get(file)?.get(specifier) ?? resolveSpecifier(file, specifier);
      if (!target || target === file) return;
      const way = wayBack(graph, target, file);
      if (way) {
        const names = [file, ...way].map((f) => path.relative(root, f));
        context.report({ node, messageId: 'cycle', data: { way: names.join(' → ') } });
      }
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};
