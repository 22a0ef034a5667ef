import type { K8sObject } from './render.js';

/** A model class of kubernetes-models (and its Gateway API / Prometheus Operator companions). */
interface ModelClass {
  new (data: unknown): { validate(): void };
}

/**
 * The package that holds the models of an API group. Core and built-in groups come from
 * kubernetes-models; the CRDs this repo uses from their @kubernetes-models packages.
 */
function modulePathFor(apiVersion: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  if (group === 'gateway.networking.k8s.io') return `@kubernetes-models/gateway-api/${group}/${version}`;
  if (group === 'monitoring.coreos.com') return `@kubernetes-models/prometheus-operator/${group}/${version}`;
  return group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`;
}

export class UnknownKindError extends Error {}

/** Validates an object against the OpenAPI schema of its kind; throws naming the object and the field. */
export async function validateAgainstSchema(object: K8sObject): Promise<void> {
  const modulePath = modulePathFor(object.apiVersion);
  let models: Record<string, unknown>;
  try {
    models = (await import(modulePath)) as Record<string, unknown>;
  } catch {
    throw new UnknownKindError(
      `${object.apiVersion} ${object.kind}: no schema package for this API group (${modulePath})`,
    );
  }
  const Model = models[object.kind] as ModelClass | undefined;
  if (typeof Model !== 'function')
    throw new UnknownKindError(`${object.apiVersion} ${object.kind}: unknown kind in ${modulePath}`);
  try {
    new Model(object).validate();
  } catch (err) {
    throw new Error(
      `${object.kind}/${object.metadata.name} does not match the ${object.apiVersion} schema: ${(err as Error).message}`,
    );
  }
}
