import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The repository root and this project's folder. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const manifestsRoot = path.join(repoRoot, 'deploy/k8s');

/** A Kubernetes object as rendered (kind, apiVersion, metadata, then anything). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** What `kubectl kustomize` builds from a kustomization folder (relative to deploy/k8s), parsed. */
export function renderKustomization(dir: string): K8sObject[] {
  let text: string;
  try {
    text = execFileSync('kubectl', ['kustomize', path.join(manifestsRoot, dir)], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (err) {
    const failure = err as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT')
      throw new Error(
        'kubectl is not on PATH: the manifests are rendered with `kubectl kustomize` (kubectl 1.27+, kustomize v5)',
      );
    throw new Error(`kubectl kustomize ${dir} failed: ${failure.stderr ?? failure.message}`);
  }
  return parseYamlObjects(text, dir);
}

/** Every document of a multi-document YAML text; a syntax error names the source. */
function parseYamlObjects(text: string, source: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value = doc.toJS() as K8sObject | null;
    if (value) objects.push(value);
  }
  return objects;
}

export const OVERLAYS = ['overlays/dev', 'overlays/prod'] as const;

/** `Kind/name` of an object, for messages. */
export const idOf = (object: K8sObject): string => `${object.kind}/${object.metadata.name}`;
