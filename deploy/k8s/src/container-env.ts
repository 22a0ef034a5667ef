import type { K8sObject } from './render.js';

interface EnvVarSource {
  configMapKeyRef?: { name: string; key: string; optional?: boolean };
  secretKeyRef?: { name: string; key: string; optional?: boolean };
  fieldRef?: { fieldPath: string };
}
export interface Container {
  name: string;
  image: string;
  env?: { name: string; value?: string; valueFrom?: EnvVarSource }[];
  envFrom?: {
    configMapRef?: { name: string; optional?: boolean };
    secretRef?: { name: string; optional?: boolean };
    prefix?: string;
  }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
}
interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
  tcpSocket?: { port: number | string };
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; emptyDir?: object }[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  serviceAccountName?: string;
  terminationGracePeriodSeconds?: number;
  topologySpreadConstraints?: unknown[];
}
export type Workload = K8sObject & {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
};

/** Where a variable's value comes from in the manifests. */
type EnvOrigin =
  | { kind: 'literal' | 'configMap'; value: string; from: string }
  | { kind: 'secret'; secret: string; key: string; optional: boolean };

/** What a container's environment is made of, variable by variable, and the whole Secrets it imports. */
export interface ContainerEnv {
  vars: Map<string, EnvOrigin>;
  /** Secrets imported whole (envFrom secretRef): their keys are not in the manifests. */
  secretRefs: { name: string; optional: boolean }[];
  problems: string[];
}

/**
 * Resolves a container's environment as the kubelet would: envFrom sources first (later ones win),
 * then `env` entries. ConfigMaps are looked up among the rendered objects (a missing one is a
 * problem unless optional); Secrets are not part of the manifests, so their values stay references.
 */
export function containerEnv(container: Container, objects: K8sObject[]): ContainerEnv {
  const configMaps = new Map(
    objects
      .filter((o) => o.kind === 'ConfigMap')
      .map((o) => [o.metadata.name, (o as K8sObject & { data?: Record<string, string> }).data ?? {}]),
  );
  const vars = new Map<string, EnvOrigin>();
  const secretRefs: ContainerEnv['secretRefs'] = [];
  const problems: string[] = [];
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const data = configMaps.get(source.configMapRef.name);
      if (!data) {
        if (!source.configMapRef.optional)
          problems.push(`envFrom names ConfigMap ${source.configMapRef.name}, which the manifests do not define`);
        continue;
      }
      for (const [key, value] of Object.entries(data))
        vars.set(`${source.prefix ?? ''}${key}`, { kind: 'configMap', value, from: source.configMapRef.name });
    }
    if (source.secretRef)
      secretRefs.push({ name: source.secretRef.name, optional: source.secretRef.optional ?? false });
  }
  for (const entry of container.env ?? []) {
    if (entry.value !== undefined) vars.set(entry.name, { kind: 'literal', value: entry.value, from: 'env' });
    else if (entry.valueFrom?.secretKeyRef) {
      const ref = entry.valueFrom.secretKeyRef;
      vars.set(entry.name, { kind: 'secret', secret: ref.name, key: ref.key, optional: ref.optional ?? false });
    } else if (entry.valueFrom?.configMapKeyRef) {
      const ref = entry.valueFrom.configMapKeyRef;
      const value = configMaps.get(ref.name)?.[ref.key];
      if (value === undefined) {
        if (!ref.optional)
          problems.push(`${entry.name} reads ConfigMap ${ref.name} key ${ref.key}, which the manifests do not define`);
      } else vars.set(entry.name, { kind: 'configMap', value, from: ref.name });
    }
  }
  return { vars, secretRefs, problems };
}

/** The pod templates of Deployments and StatefulSets. */
export function workloads(objects: K8sObject[]): Workload[] {
  return objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as Workload[];
}

/** The app a platform container runs: image `<registry>/agent-platform/<app>:<tag>` (or the base's `agent-platform/<app>`). */
export function platformAppOf(container: Container): string | undefined {
  return /(?:^|\/)agent-platform\/([a-z0-9-]+)(?::[^/]*)?$/.exec(container.image)?.[1];
}
