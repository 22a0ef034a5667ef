import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PLATFORM_APPS } from '@platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfigSchema, type AppConfigSchema } from './app-config-schemas.js';
import { containerEnv, platformAppOf, workloads, type Container, type Workload } from './container-env.js';
import { idOf, OVERLAYS, renderKustomization, type K8sObject } from './render.js';
import { SAMPLE_SECRET_VALUES } from './sample-secrets.js';

/** Settings every service receives from the shared ConfigMap, whether or not its schema reads them. */
const SHARED_CONFIG_MAP = 'platform-common';

const scratch = mkdtempSync(path.join(tmpdir(), 'k8s-config-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A file a variable points at inside a volume mounted from a ConfigMap of the manifests (e.g.
 * MCP_SERVERS_FILE) is written to a scratch folder, so the schema reads the manifest's content.
 */
function materializeMountedFile(value: string, container: Container, workload: Workload, objects: K8sObject[]): string {
  for (const mount of container.volumeMounts ?? []) {
    if (!value.startsWith(`${mount.mountPath}/`)) continue;
    const volume = workload.spec.template.spec.volumes?.find((v) => v.name === mount.name);
    const configMapName = volume?.configMap?.name;
    const configMap = objects
      .filter((o): o is K8sObject & { data?: Record<string, string> } => o.kind === 'ConfigMap')
      .find((o) => o.metadata.name === configMapName);
    if (!configMap) return value;
    const key = value.slice(mount.mountPath.length + 1);
    const content = configMap.data?.[key];
    if (content === undefined)
      throw new Error(`${idOf(workload)}: ${value} is not a key of ConfigMap ${configMap.metadata.name}`);
    const file = path.join(scratch, workload.metadata.name, key);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    return file;
  }
  return value;
}

describe.each(OVERLAYS)("the %s overlay sets what each app's config schema requires", (overlay) => {
  let objects: K8sObject[];
  let containers: { workload: Workload; container: Container; app: string; schema: AppConfigSchema }[];
  beforeAll(async () => {
    objects = renderKustomization(overlay);
    containers = [];
    for (const workload of workloads(objects)) {
      for (const container of workload.spec.template.spec.containers) {
        const app = platformAppOf(container);
        if (app) containers.push({ workload, container, app, schema: await loadAppConfigSchema(app) });
      }
    }
  });

  it('runs every platform app the local launcher starts (llm-sim aside: production uses a real model)', () => {
    const deployed = new Set(containers.map((c) => c.app));
    expect(PLATFORM_APPS.filter((app) => app !== 'llm-sim' && !deployed.has(app))).toEqual([]);
  });

  it('sets every variable the schema requires (no default) from a ConfigMap or a Secret', () => {
    const missing = containers.flatMap(({ workload, container, schema }) => {
      const env = containerEnv(container, objects);
      return [
        ...env.problems.map((p) => `${idOf(workload)}: ${p}`),
        ...schema.required
          .filter((name) => !env.vars.has(name))
          .map(
            (name) =>
              `${idOf(workload)}: ${schema.dir}/src/config.ts requires ${name}, which no ConfigMap or Secret of the manifests sets`,
          ),
      ];
    });
    expect(missing).toEqual([]);
  });

  /** The environment the container boots with: manifest values, Secrets as samples, mounted files materialized. */
  const bootEnv = (workload: Workload, container: Container): { env: Record<string, string>; problems: string[] } => {
    const env: Record<string, string> = {};
    const problems: string[] = [];
    for (const [name, origin] of containerEnv(container, objects).vars) {
      if (origin.kind === 'secret') {
        const sample = SAMPLE_SECRET_VALUES[name];
        if (sample === undefined)
          problems.push(
            `${idOf(workload)}: ${name} comes from Secret ${origin.secret}: add a sample value to src/sample-secrets.ts`,
          );
        else env[name] = sample;
      } else env[name] = materializeMountedFile(origin.value, container, workload, objects);
    }
    return { env, problems };
  };

  it("passes the whole environment through the app's schema as at boot (Secrets replaced by samples)", () => {
    const failures = containers.flatMap(({ workload, container, schema }) => {
      const { env, problems } = bootEnv(workload, container);
      const result = schema.schemaFor(env).safeParse(env);
      return [
        ...problems,
        ...(result.success
          ? []
          : result.error.issues.map(
              (issue) => `${idOf(workload)}: ${issue.path.join('.') || '(config)'}: ${issue.message}`,
            )),
      ];
    });
    expect(failures).toEqual([]);
  });

  it('names only variables the app reads in its own ConfigMap (a typo would be ignored at boot)', () => {
    const unknown = containers.flatMap(({ workload, container, schema }) =>
      [...containerEnv(container, objects).vars]
        .filter(([, origin]) => origin.kind !== 'configMap' || origin.from !== SHARED_CONFIG_MAP)
        .filter(([name]) => !schema.variables.includes(name) && !name.startsWith('OTEL_'))
        .map(
          ([name, origin]) =>
            `${idOf(workload)}: ${name} (${origin.kind === 'secret' ? `Secret ${origin.secret}` : origin.from}) is not a setting of ${schema.dir}`,
        ),
    );
    expect(unknown).toEqual([]);
  });

  it('gives every pod a termination grace period longer than its SHUTDOWN_GRACE_MS', () => {
    const short = containers.flatMap(({ workload, container, schema }) => {
      const { env } = bootEnv(workload, container);
      const parsed = schema.schemaFor(env).safeParse(env);
      const graceMs = parsed.success ? (parsed.data as { SHUTDOWN_GRACE_MS?: number }).SHUTDOWN_GRACE_MS : undefined;
      const periodMs = (workload.spec.template.spec.terminationGracePeriodSeconds ?? 30) * 1000;
      if (graceMs === undefined) return [`${idOf(workload)}: SHUTDOWN_GRACE_MS unknown`];
      // Room for the preStop window and for the process to exit after draining.
      return periodMs >= graceMs + 5_000
        ? []
        : [
            `${idOf(workload)}: terminationGracePeriodSeconds ${periodMs / 1000} s does not outlast SHUTDOWN_GRACE_MS ${graceMs} ms by 5 s`,
          ];
    });
    expect(short).toEqual([]);
  });

  it('listens on all interfaces where it serves, on the port its probes and Service use', () => {
    for (const { workload, container, schema } of containers) {
      const env = containerEnv(container, objects).vars;
      const value = (name: string): string | undefined => {
        const origin = env.get(name);
        return origin && origin.kind !== 'secret' ? origin.value : undefined;
      };
      for (const [host, port] of [
        ['GRPC_HOST', 'GRPC_PORT'],
        ['HTTP_HOST', 'HTTP_PORT'],
      ] as const) {
        if (!schema.variables.includes(port)) continue;
        expect(value(host), `${idOf(workload)} ${host}`).toBe('0.0.0.0');
        expect(
          container.ports?.map((p) => p.containerPort),
          `${idOf(workload)} ${port}`,
        ).toContain(Number(value(port)));
      }
    }
  });
});
