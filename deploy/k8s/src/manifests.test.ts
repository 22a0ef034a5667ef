import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_RUNNERS, platformPrincipals, renderNatsAuthorization } from '@platform/nats-permissions';
import { containerEnv, platformAppOf, workloads, type Container, type Workload } from './container-env.js';
import { UnknownKindError, validateAgainstSchema } from './kubernetes-schemas.js';
import { idOf, OVERLAYS, renderKustomization, repoRoot, type K8sObject } from './render.js';

type Selector = { matchLabels?: Record<string, string> };
type PolicyPeer = { podSelector?: Selector; namespaceSelector?: Selector; ipBlock?: { cidr: string } };
type NetworkPolicy = K8sObject & {
  spec: {
    podSelector: Selector;
    policyTypes?: string[];
    ingress?: { from?: PolicyPeer[]; ports?: { port: number }[] }[];
    egress?: { to?: PolicyPeer[]; ports?: { port: number }[] }[];
  };
};

const selects = (selector: Selector | undefined, labels: Record<string, string>): boolean =>
  Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);

/** The fields of core/v1 Container. */
const CONTAINER_FIELDS = new Set([
  'name',
  'image',
  'command',
  'args',
  'workingDir',
  'ports',
  'envFrom',
  'env',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'volumeMounts',
  'volumeDevices',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
  'terminationMessagePath',
  'terminationMessagePolicy',
  'imagePullPolicy',
  'securityContext',
  'stdin',
  'stdinOnce',
  'tty',
]);

/** The NATS users of the permission model (tools/nats-permissions), the one source of truth. */
const MODEL_USERS = new Set(platformPrincipals().map((p) => p.name));
/** The platform's runners by image name: the user each logs in as and its discovery name. */
const RUNNER_OF_APP: Record<string, { user: string; name: string }> = Object.fromEntries(
  PLATFORM_RUNNERS.map((r) => [r.user ?? r.name, { user: r.user ?? r.name, name: r.name }]),
);
/**
 * Runners whose tools only the operator knows (the MCP servers the bridge serves): their user is
 * generated from a runners file (`platform-nats-config --runners`, docs/deploy.md#nats-auth).
 */
const OPERATOR_DECLARED_RUNNERS = new Set(['mcp-bridge']);
/** The NATS user each platform image logs in as: services and runners of the model by name; credential has none. */
const NATS_USER_OF_APP: Record<string, string | undefined> = Object.fromEntries(
  [
    'api',
    'orchestrator',
    'memory',
    'agent-pool',
    'credential',
    'trigger',
    'tool-runner',
    'mcp-bridge',
    'travel-runner',
  ].map((app) => [
    app,
    MODEL_USERS.has(app) || OPERATOR_DECLARED_RUNNERS.has(app) ? (RUNNER_OF_APP[app]?.user ?? app) : undefined,
  ]),
);

/** The services whose pods carry no state of their own and scale on load. */
const AUTOSCALED = ['api', 'orchestrator', 'tool-runner', 'mcp-bridge'];

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  let objects: K8sObject[];
  let pods: Workload[];
  beforeAll(() => {
    objects = renderKustomization(overlay);
    pods = workloads(objects);
  });
  const containers = (): { workload: Workload; container: Container }[] =>
    pods.flatMap((workload) => workload.spec.template.spec.containers.map((container) => ({ workload, container })));

  it('renders every platform service, NATS and the collector', () => {
    const names = pods.map((w) => w.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'api',
        'orchestrator',
        'memory',
        'agent-pool',
        'credential',
        'trigger',
        'tool-runner',
        'mcp-bridge',
        'nats',
        'otel-collector',
      ]),
    );
  });

  it('matches the Kubernetes schemas object by object', async () => {
    const problems: string[] = [];
    // cert-manager's kinds have no schema package here; the service-identity test checks them.
    for (const object of objects.filter((o) => !o.apiVersion.startsWith('cert-manager.io/'))) {
      try {
        await validateAgainstSchema(object);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names only fields a container has (the schemas accept unknown fields, so a misspelt probe would vanish)', () => {
    const unknown = containers().flatMap(({ workload, container }) =>
      Object.keys(container)
        .filter((field) => !CONTAINER_FIELDS.has(field))
        .map((field) => `${idOf(workload)} container ${container.name}: ${field}`),
    );
    expect(unknown).toEqual([]);
  });

  it('gives every container readiness and liveness probes, requests and limits', () => {
    const problems = containers().flatMap(({ workload, container }) => {
      const where = `${idOf(workload)} container ${container.name}`;
      const missing: string[] = [];
      if (!container.readinessProbe) missing.push(`${where}: no readinessProbe`);
      if (!container.livenessProbe) missing.push(`${where}: no livenessProbe`);
      for (const resource of ['cpu', 'memory']) {
        if (!container.resources?.requests?.[resource]) missing.push(`${where}: no ${resource} request`);
        if (!container.resources?.limits?.[resource]) missing.push(`${where}: no ${resource} limit`);
      }
      return missing;
    });
    expect(problems).toEqual([]);
  });

  it('runs every container as non-root, unprivileged, without capabilities, on a read-only root', () => {
    const problems = containers().flatMap(({ workload, container }) => {
      const where = `${idOf(workload)} container ${container.name}`;
      const pod = workload.spec.template.spec.securityContext ?? {};
      const own = container.securityContext ?? {};
      const found: string[] = [];
      if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) found.push(`${where}: runAsNonRoot is not true`);
      if ((own.runAsUser ?? pod.runAsUser) === 0) found.push(`${where}: runs as uid 0`);
      if (own.allowPrivilegeEscalation !== false) found.push(`${where}: allowPrivilegeEscalation is not false`);
      if (own.privileged === true) found.push(`${where}: privileged`);
      if (!own.capabilities?.drop?.includes('ALL')) found.push(`${where}: capabilities are not dropped (drop: [ALL])`);
      if ((own.capabilities?.add ?? []).length > 0) found.push(`${where}: adds capabilities`);
      if (own.readOnlyRootFilesystem !== true) found.push(`${where}: root file system is writable`);
      return found;
    });
    expect(problems).toEqual([]);
  });

  it('covers every Deployment and StatefulSet with a PodDisruptionBudget', () => {
    const budgets = objects.filter((o) => o.kind === 'PodDisruptionBudget') as (K8sObject & {
      spec: { selector: Selector };
    })[];
    const uncovered = pods
      .filter((w) => !budgets.some((b) => selects(b.spec.selector, w.spec.template.metadata.labels)))
      .map(idOf);
    expect(uncovered).toEqual([]);
  });

  it('autoscales the stateless services (api, orchestrator, runners)', () => {
    const scaled = objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((o) => (o as K8sObject & { spec: { scaleTargetRef: { kind: string; name: string } } }).spec.scaleTargetRef);
    const missing = AUTOSCALED.filter((name) => !scaled.some((ref) => ref.kind === 'Deployment' && ref.name === name));
    expect(missing).toEqual([]);
    for (const ref of scaled)
      expect(
        pods.some((w) => w.kind === ref.kind && w.metadata.name === ref.name),
        `HPA target ${ref.kind}/${ref.name}`,
      ).toBe(true);
  });

  it('leaves the replica count of an autoscaled Deployment to its HPA (kubectl apply would reset it)', () => {
    const scaled = objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((o) => (o as K8sObject & { spec: { scaleTargetRef: { name: string } } }).spec.scaleTargetRef.name);
    const fixed = pods
      .filter((w) => w.kind === 'Deployment' && scaled.includes(w.metadata.name) && w.spec.replicas !== undefined)
      .map(idOf);
    expect(fixed).toEqual([]);
  });

  it('spreads the replicas of every service over zones and nodes', () => {
    // A Deployment without a replica count is scaled by its HPA, so it may run several.
    const unspread = pods
      .filter(
        (w) =>
          (w.spec.template.spec.topologySpreadConstraints ?? []).length === 0 &&
          (w.spec.replicas === undefined || w.spec.replicas > 1),
      )
      .map(idOf);
    expect(unspread).toEqual([]);
  });

  it('exposes Prometheus metrics on port 9464 named `metrics` in every platform pod, scraped by a PodMonitor', () => {
    const without = containers()
      .filter(({ container }) => platformAppOf(container))
      .filter(({ container }) => !container.ports?.some((p) => p.name === 'metrics' && p.containerPort === 9464))
      .map(({ workload }) => idOf(workload));
    expect(without).toEqual([]);
    const monitors = objects.filter((o) => o.kind === 'PodMonitor') as (K8sObject & {
      spec: { selector: Selector; podMetricsEndpoints: { port: string; path?: string }[] };
    })[];
    for (const { workload, container } of containers().filter(({ container }) => platformAppOf(container))) {
      const scraped = monitors.some(
        (m) =>
          selects(m.spec.selector, workload.spec.template.metadata.labels) &&
          m.spec.podMetricsEndpoints.some((e) => e.port === 'metrics' && (e.path ?? '/metrics') === '/metrics'),
      );
      expect(scraped, `${idOf(workload)} (${container.name}) is scraped`).toBe(true);
    }
  });

  it('names the scrape job so the target-down alert of deploy/observability selects it', () => {
    const rules = readFileSync(`${repoRoot}/deploy/observability/prometheus-rules.yaml`, 'utf8');
    const selector = /up\{job=~"([^"]+)"\}/.exec(rules)?.[1];
    expect(selector, 'PlatformMetricsTargetDown selects up by job').toBeDefined();
    const job = new RegExp(`^(?:${selector})$`);
    const monitors = objects.filter((o) => o.kind === 'PodMonitor') as (K8sObject & {
      spec: { jobLabel?: string; selector: Selector };
    })[];
    for (const { workload } of containers().filter(({ container }) => platformAppOf(container))) {
      const labels = workload.spec.template.metadata.labels;
      const monitor = monitors.find((m) => selects(m.spec.selector, labels))!;
      // Without jobLabel the operator names the job <namespace>/<PodMonitor name>.
      const jobName = monitor.spec.jobLabel
        ? labels[monitor.spec.jobLabel]
        : `${monitor.metadata.namespace}/${monitor.metadata.name}`;
      expect(jobName, `the job of ${idOf(workload)}`).toMatch(job);
    }
  });

  it('serves /metrics (OTEL_METRICS_EXPORTER=prometheus) wherever a probe or the scrape reads it', () => {
    for (const { workload, container } of containers().filter(({ container }) => platformAppOf(container))) {
      const env = containerEnv(container, objects).vars;
      const probesMetrics = [container.startupProbe, container.readinessProbe, container.livenessProbe].some(
        (p) => (p as { httpGet?: { path?: string } } | undefined)?.httpGet?.path === '/metrics',
      );
      const exporter = env.get('OTEL_METRICS_EXPORTER');
      expect(
        exporter && exporter.kind !== 'secret' ? exporter.value : undefined,
        `${idOf(workload)} (probes /metrics: ${probesMetrics})`,
      ).toBe('prometheus');
      const port = env.get('OTEL_EXPORTER_PROMETHEUS_PORT');
      expect(port && port.kind !== 'secret' ? port.value : '9464', `${idOf(workload)} metrics port`).toBe('9464');
    }
  });

  it('gives each NATS client the Secret <user>-nats of its user in the permission model, and no other', () => {
    const problems = containers()
      .filter(({ container }) => platformAppOf(container))
      .flatMap(({ workload, container }) => {
        const app = platformAppOf(container)!;
        const natsClient = workload.spec.template.metadata.labels['agent-platform/nats-client'] === 'true';
        const natsRefs = (container.envFrom ?? []).flatMap((s) =>
          s.secretRef?.name.endsWith('-nats') ? [s.secretRef] : [],
        );
        const user = NATS_USER_OF_APP[app];
        const found: string[] = [];
        for (const ref of natsRefs) {
          const refUser = ref.name.slice(0, -'-nats'.length);
          if (!MODEL_USERS.has(refUser) && !OPERATOR_DECLARED_RUNNERS.has(refUser))
            found.push(
              `${idOf(workload)}: imports ${ref.name}, but the permission model has no NATS user '${refUser}'`,
            );
        }
        if (user === undefined) {
          if (natsRefs.length > 0)
            found.push(
              `${idOf(workload)}: ${app} has no NATS user but imports ${natsRefs.map((r) => r.name).join(', ')}`,
            );
          if (natsClient) found.push(`${idOf(workload)}: ${app} has no NATS user but is labelled a NATS client`);
          return found;
        }
        const ref = natsRefs.find((r) => r.name === `${user}-nats`);
        if (!ref || ref.optional !== false)
          found.push(
            `${idOf(workload)}: ${app} logs in to NATS as '${user}' but does not import Secret ${user}-nats (optional: false)`,
          );
        if (!natsClient)
          found.push(
            `${idOf(workload)}: imports ${user}-nats but is not labelled a NATS client (NetworkPolicy would block it)`,
          );
        return found;
      });
    expect(problems).toEqual([]);
  });

  it('runs each runner under the discovery name its NATS user may answer to', () => {
    for (const [app, runner] of Object.entries(RUNNER_OF_APP)) {
      const pod = containers().find(({ container }) => platformAppOf(container) === app);
      if (!pod) continue; // the travel runner is an optional component
      const env = containerEnv(pod.container, objects);
      const configured = env.vars.get('RUNNER_NAME');
      const name = configured && configured.kind !== 'secret' ? configured.value : runner.name;
      expect(name, `${app}'s RUNNER_NAME`).toBe(runner.name);
    }
    expect(containers().some(({ container }) => platformAppOf(container) === 'travel-runner')).toBe(
      overlay === 'overlays/dev',
    );
  });

  it('gives the NATS pod the generated auth.conf and the passwords it references', () => {
    const nats = pods.find((w) => w.kind === 'StatefulSet' && w.metadata.name === 'nats')!;
    const container = nats.spec.template.spec.containers.find((c) => c.name === 'nats')!;
    expect(container.envFrom?.map((s) => s.secretRef)).toContainEqual({ name: 'nats-server-auth', optional: false });
    const mount = container.volumeMounts?.find((m) => m.mountPath === '/etc/nats/auth');
    expect(mount, 'auth.conf is mounted at /etc/nats/auth').toBeDefined();
    const volume = (nats.spec.template.spec.volumes ?? []).find((v) => v.name === mount!.name) as
      { configMap?: { name: string } } | undefined;
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === volume?.configMap?.name) as
      (K8sObject & { data: Record<string, string> }) | undefined;
    expect(configMap?.data['auth.conf'], 'the ConfigMap holds the generated auth.conf').toBe(
      renderNatsAuthorization(platformPrincipals(), { kind: 'env' }),
    );
    const natsConf = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('nats-config'),
    ) as K8sObject & { data: Record<string, string> };
    expect(natsConf.data['nats.conf']).toContain('include ./auth/auth.conf');
    expect(JSON.stringify(objects)).not.toContain('"nats-auth"');
  });

  describe('network policies', () => {
    let policies: NetworkPolicy[];
    beforeAll(() => {
      policies = objects.filter((o) => o.kind === 'NetworkPolicy') as NetworkPolicy[];
    });

    it('deny everything that no policy allows, in both directions', () => {
      const deny = policies.find(
        (p) =>
          Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0 &&
          !p.spec.ingress?.length &&
          !p.spec.egress?.length,
      );
      expect(deny?.spec.policyTypes).toEqual(expect.arrayContaining(['Ingress', 'Egress']));
    });

    it('give every workload its own policy, naming the callers it admits', () => {
      const problems = pods.flatMap((w) => {
        const own = policies.filter(
          (p) =>
            Object.keys(p.spec.podSelector.matchLabels ?? {}).length > 0 &&
            selects(p.spec.podSelector, w.spec.template.metadata.labels),
        );
        if (own.length === 0) return [`${idOf(w)}: no NetworkPolicy selects its pods`];
        // A rule without `from` admits anyone: never allowed.
        return own.flatMap((p) =>
          (p.spec.ingress ?? [])
            .filter((rule) => !rule.from?.length)
            .map(() => `${idOf(p)}: an ingress rule admits every source`),
        );
      });
      expect(problems).toEqual([]);
    });

    it('admit traffic from outside the namespace only to the api (from the gateway), to NATS (from runner namespaces) and to monitoring ports', () => {
      const MONITORING_PORTS = [9464, 8222];
      const problems: string[] = [];
      for (const policy of policies) {
        for (const rule of policy.spec.ingress ?? []) {
          for (const peer of rule.from ?? []) {
            if (peer.ipBlock) problems.push(`${idOf(policy)}: admits an IP block`);
            if (!peer.namespaceSelector) continue;
            const labels = peer.namespaceSelector.matchLabels ?? {};
            const ports = (rule.ports ?? []).map((p) => p.port);
            const target = policy.spec.podSelector.matchLabels?.['app.kubernetes.io/name'];
            const allowed =
              (target === 'api' && labels['agent-platform/gateway'] === 'true' && ports.every((p) => p === 8080)) ||
              (target === 'nats' && labels['agent-platform/runners'] === 'true' && ports.every((p) => p === 4222)) ||
              (labels['agent-platform/monitoring'] === 'true' &&
                ports.length > 0 &&
                ports.every((p) => MONITORING_PORTS.includes(p)));
            if (!allowed)
              problems.push(
                `${idOf(policy)}: admits namespaces ${JSON.stringify(labels)} on ports ${ports.join(',') || 'all'}`,
              );
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('let a service be called on its port only by the services that call it', () => {
      const callersOf = (name: string): string[] =>
        policies
          .filter((p) => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === name)
          .flatMap((p) =>
            (p.spec.ingress ?? []).flatMap((rule) =>
              (rule.from ?? []).map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name']),
            ),
          )
          .filter((caller): caller is string => caller !== undefined)
          .sort();
      expect(callersOf('orchestrator')).toEqual(['api', 'trigger']);
      expect(callersOf('memory')).toEqual(['api', 'orchestrator']);
      expect(callersOf('agent-pool')).toEqual(['api', 'orchestrator']);
      expect(callersOf('trigger')).toEqual(['api']);
      expect(callersOf('credential')).toEqual(
        overlay === 'overlays/dev' ? ['api', 'orchestrator', 'travel-runner'] : ['api', 'orchestrator'],
      );
      expect(callersOf('api')).toEqual([]);
      expect(callersOf('tool-runner')).toEqual([]);
    });

    it('open each caller its egress to its callees, NATS, and DNS', () => {
      const egressTo = (from: string, to: string, port: number): boolean =>
        policies.some(
          (p) =>
            selects(p.spec.podSelector, {
              'app.kubernetes.io/name': from,
              'app.kubernetes.io/part-of': 'agent-platform',
            }) &&
            (p.spec.egress ?? []).some(
              (rule) =>
                (rule.ports ?? []).some((x) => x.port === port) &&
                (rule.to ?? []).some((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === to),
            ),
        );
      expect(egressTo('api', 'orchestrator', 50052)).toBe(true);
      expect(egressTo('api', 'credential', 50055)).toBe(true);
      expect(egressTo('trigger', 'orchestrator', 50052)).toBe(true);
      expect(egressTo('orchestrator', 'memory', 50051)).toBe(true);
      expect(egressTo('tool-runner', 'nats', 4222)).toBe(true);
      expect(egressTo('tool-runner', 'orchestrator', 50052)).toBe(false);
      const dns = policies.some(
        (p) =>
          Object.keys(p.spec.podSelector.matchLabels ?? {}).length === 0 &&
          (p.spec.egress ?? []).some((rule) => (rule.ports ?? []).some((x) => x.port === 53)),
      );
      expect(dns).toBe(true);
    });
  });

  describe('gateway', () => {
    it('routes only to the api, over TLS with a certificate from a Secret', () => {
      const routeKinds = ['HTTPRoute', 'GRPCRoute', 'TLSRoute', 'TCPRoute', 'UDPRoute', 'Ingress'];
      const routes = objects.filter((o) => routeKinds.includes(o.kind)) as (K8sObject & {
        spec: { rules: { backendRefs?: { kind?: string; name: string; port: number }[] }[] };
      })[];
      expect(routes.map(idOf)).toEqual(['HTTPRoute/api']);
      const backends = routes.flatMap((r) => r.spec.rules.flatMap((rule) => rule.backendRefs ?? []));
      expect(backends.length).toBeGreaterThan(0);
      expect(backends.every((b) => (b.kind ?? 'Service') === 'Service' && b.name === 'api' && b.port === 80)).toBe(
        true,
      );
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'api') as K8sObject & {
        spec: { selector: Record<string, string>; ports: { port: number; targetPort: string }[] };
      };
      expect(service.spec.selector).toEqual({ 'app.kubernetes.io/name': 'api' });
      const gateways = objects.filter((o) => o.kind === 'Gateway') as (K8sObject & {
        spec: { listeners: { protocol: string; tls?: { certificateRefs?: { kind?: string; name: string }[] } }[] };
      })[];
      expect(gateways).toHaveLength(1);
      for (const listener of gateways[0]!.spec.listeners) {
        expect(listener.protocol).toBe('HTTPS');
        expect(listener.tls?.certificateRefs?.[0]).toMatchObject({ kind: 'Secret', name: 'api-tls' });
      }
    });
  });

  it('reaches each gRPC service its clients balance over dns:/// through a headless Service on that port', () => {
    const configMaps = objects.filter((o) => o.kind === 'ConfigMap') as (K8sObject & {
      data?: Record<string, string>;
    })[];
    const targets = configMaps.flatMap((cm) =>
      Object.values(cm.data ?? {}).flatMap((value) =>
        [...value.matchAll(/^dns:\/\/\/([a-z0-9-]+):(\d+)$/g)].map((m) => ({ host: m[1]!, port: Number(m[2]) })),
      ),
    );
    expect(targets.length).toBeGreaterThan(0);
    for (const { host, port } of targets) {
      const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === host) as
        (K8sObject & { spec: { clusterIP?: string; ports: { port: number }[] } }) | undefined;
      expect(service, `Service ${host}`).toBeDefined();
      expect(service!.spec.clusterIP, `Service ${host} is headless`).toBe('None');
      expect(service!.spec.ports.map((p) => p.port)).toContain(port);
    }
  });

  it('gives every gRPC service and runner that calls one a cert-manager certificate with its SPIFFE ID, mounted where GRPC_TLS_* point', () => {
    type Certificate = K8sObject & {
      spec: {
        secretName: string;
        isCA?: boolean;
        uris?: string[];
        usages?: string[];
        privateKey?: { algorithm?: string; rotationPolicy?: string };
        issuerRef: { name: string; kind: string };
      };
    };
    const certificates = objects.filter(
      (o) => o.kind === 'Certificate' && o.apiVersion === 'cert-manager.io/v1',
    ) as Certificate[];
    const issuers = objects.filter(
      (o) => o.kind === 'Issuer' && o.apiVersion === 'cert-manager.io/v1',
    ) as (K8sObject & { spec: { ca?: { secretName: string } } })[];
    expect(issuers.find((i) => i.metadata.name === 'platform-ca')?.spec.ca?.secretName).toBe('platform-ca');
    expect(certificates.find((c) => c.metadata.name === 'platform-ca')?.spec).toMatchObject({
      isCA: true,
      secretName: 'platform-ca',
    });
    const identityOf: Record<string, string> = {
      api: 'api',
      orchestrator: 'orchestrator',
      memory: 'memory',
      'agent-pool': 'agent-pool',
      credential: 'credential',
      trigger: 'trigger',
      'travel-runner': 'runner/travel',
    };
    let checked = 0;
    for (const { workload, container } of containers()) {
      const app = platformAppOf(container);
      const identity = app ? identityOf[app] : undefined;
      if (!identity) continue;
      checked++;
      const env = containerEnv(container, objects).vars;
      const file = (name: string): string => {
        const origin = env.get(name);
        expect(origin, `${idOf(workload)} ${name}`).toBeDefined();
        return origin && origin.kind !== 'secret' ? origin.value : '';
      };
      const mount = container.volumeMounts?.find((m) => file('GRPC_TLS_CERT_FILE').startsWith(`${m.mountPath}/`));
      expect(mount, `${idOf(workload)} mounts its certificate`).toBeDefined();
      expect([file('GRPC_TLS_CA_FILE'), file('GRPC_TLS_CERT_FILE'), file('GRPC_TLS_KEY_FILE')]).toEqual(
        ['ca.crt', 'tls.crt', 'tls.key'].map((key) => `${mount!.mountPath}/${key}`),
      );
      expect(env.has('GRPC_INSECURE_PLAINTEXT'), idOf(workload)).toBe(false);
      const secretName = workload.spec.template.spec.volumes?.find((v) => v.name === mount!.name)?.secret?.secretName;
      const certificate = certificates.find((c) => c.spec.secretName === secretName);
      expect(certificate, `${idOf(workload)}: a Certificate writes Secret ${secretName}`).toBeDefined();
      expect(certificate!.spec.uris).toEqual([`spiffe://agent-platform/${identity}`]);
      expect(certificate!.spec.issuerRef).toEqual({ name: 'platform-ca', kind: 'Issuer' });
      expect(certificate!.spec.usages).toContain('client auth');
      expect(certificate!.spec.privateKey).toMatchObject({ algorithm: 'ECDSA', rotationPolicy: 'Always' });
    }
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it('probes gRPC services over gRPC health and the api over /readyz and /healthz', () => {
    for (const { workload, container } of containers()) {
      const app = platformAppOf(container);
      if (!app) continue;
      // The gRPC port requires a client certificate the kubelet cannot present: probes ask the
      // plaintext health-only port (GRPC_HEALTH_PORT), which serves grpc.health.v1 and nothing else.
      const grpcPort = container.ports?.find((p) => p.name === 'grpc')?.containerPort;
      if (grpcPort) {
        const env = containerEnv(container, objects).vars.get('GRPC_HEALTH_PORT');
        const healthPort = env && env.kind !== 'secret' ? Number(env.value) : undefined;
        expect(healthPort, `${idOf(workload)} GRPC_HEALTH_PORT`).toBeGreaterThan(0);
        expect(healthPort).not.toBe(grpcPort);
        expect(container.ports?.find((p) => p.name === 'grpc-health')?.containerPort, idOf(workload)).toBe(healthPort);
        expect(container.readinessProbe?.grpc?.port, idOf(workload)).toBe(healthPort);
        expect(container.livenessProbe?.grpc?.port, idOf(workload)).toBe(healthPort);
      }
      if (app === 'api') {
        expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
        expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      }
    }
  });
});

describe('the Envoy Gateway example', () => {
  it('renders and matches the Gateway API schemas (its own CRDs are checked for shape)', async () => {
    const objects = renderKustomization('gateway-examples/envoy-gateway');
    expect(objects.map(idOf)).toEqual(expect.arrayContaining(['GatewayClass/agent-platform']));
    for (const object of objects) {
      try {
        await validateAgainstSchema(object);
      } catch (err) {
        if (!(err instanceof UnknownKindError) || !object.apiVersion.startsWith('gateway.envoyproxy.io/')) throw err;
        const target =
          (object as K8sObject & { spec: { targetRefs?: { kind: string; name: string }[] } }).spec.targetRefs ?? [];
        expect(target.length, `${idOf(object)} targets something`).toBeGreaterThan(0);
      }
    }
  });

  it('closes idle upstream connections before the api does (it keeps them 72 s: apps/api API_KEEP_ALIVE_TIMEOUT_MS)', () => {
    const policy = renderKustomization('gateway-examples/envoy-gateway').find(
      (o) => o.kind === 'BackendTrafficPolicy',
    ) as K8sObject & { spec: { timeout: { http: { connectionIdleTimeout: string } } } };
    const idle = /^(\d+)s$/.exec(policy.spec.timeout.http.connectionIdleTimeout);
    expect(idle, 'connectionIdleTimeout in seconds').not.toBeNull();
    expect(Number(idle![1])).toBeLessThan(72);
  });
});

describe('docs/deploy.md', () => {
  it('names every Secret the manifests read, so an operator knows what to create', () => {
    const doc = readFileSync(`${repoRoot}/docs/deploy.md`, 'utf8');
    const secrets = new Set<string>();
    for (const overlay of OVERLAYS) {
      const text = JSON.stringify(renderKustomization(overlay));
      for (const match of text.matchAll(
        /"secretKeyRef":\{"name":"([^"]+)"|"secretRef":\{"name":"([^"]+)"|"secretName":"([^"]+)"|"certificateRefs":\[\{"kind":"Secret","name":"([^"]+)"/g,
      )) {
        secrets.add((match[1] ?? match[2] ?? match[3] ?? match[4])!);
      }
    }
    expect(secrets.size).toBeGreaterThan(5);
    const undocumented = [...secrets].filter(
      (name) =>
        !doc.includes(`\`${name}\``) &&
        !doc.includes(
          `\`${name.replace(/^[a-z-]+?-nats$/, '<user>-nats').replace(/^[a-z-]+?-postgres$/, '<service>-postgres')}\``,
        ),
    );
    expect(undocumented).toEqual([]);
  });
});
