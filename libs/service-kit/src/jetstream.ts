import {
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { jsonBody } from './nats.js';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** How long messages are kept. */
  maxAgeMs: number;
  /** Window in which a repeated message id is dropped (publish retries). Default 2 minutes. */
  duplicateWindowMs?: number;
  /** `file` (default) survives a NATS restart; `memory` does not. */
  storage?: 'file' | 'memory';
  /** `limits` (default) keeps messages until max age; `workqueue` removes each once a consumer acknowledges it. */
  retention?: 'limits' | 'workqueue';
}

/**
 * Creates a JetStream stream, or brings an existing one to this configuration. Several services
 * (and replicas) may call it at boot; the last writer's settings win and the data is kept.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config: Partial<StreamConfig> & { name: string } = {
    name: spec.name,
    subjects: spec.subjects,
    max_age: nanos(spec.maxAgeMs),
    duplicate_window: nanos(Math.min(spec.duplicateWindowMs ?? 120_000, spec.maxAgeMs)),
    storage: spec.storage === 'memory' ? StorageType.Memory : StorageType.File,
    retention: spec.retention === 'workqueue' ? RetentionPolicy.Workqueue : RetentionPolicy.Limits,
  };
  try {
    await jsm.streams.info(spec.name);
  } catch {
    try {
      await jsm.streams.add(config);
      return;
    } catch {
      // Another replica created it meanwhile: update below.
    }
  }
  const { storage: _storage, retention: _retention, ...updatable } = config;
  await jsm.streams.update(spec.name, updatable);
}

/** One manager per connection: making one asks the server for the account's JetStream info. */
const managers = new WeakMap<NatsConnection, Promise<JetStreamManager>>();

function managerOf(nc: NatsConnection): Promise<JetStreamManager> {
  let manager = managers.get(nc);
  if (!manager) {
    manager = jetstreamManager(nc);
    manager.catch(() => managers.delete(nc));
    managers.set(nc, manager);
  }
  return manager;
}

/** The JSON body of the last message a stream holds on `subject`; undefined when none (or not JSON). */
export async function lastMessageJson(nc: NatsConnection, stream: string, subject: string): Promise<unknown> {
  return (await lastMessage(nc, stream, subject).catch(() => undefined))?.body;
}

/**
 * The stream sequence and JSON body (undefined when not JSON) of the last message a stream holds
 * on `subject`; undefined when it holds none. Rejects when the stream cannot be asked.
 */
export async function lastMessage(
  nc: NatsConnection,
  stream: string,
  subject: string,
): Promise<{ seq: number; body: unknown } | undefined> {
  const jsm = await managerOf(nc);
  const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
  if (!last) return undefined;
  return { seq: last.seq, body: jsonBody(last) };
}

/**
 * The JSON bodies of the messages a stream holds on one subject, oldest first, then new ones as
 * they arrive, until `signal` aborts or the caller stops iterating. Each call is an ordered
 * consumer of its own (no state on the server), so any number of readers can follow a subject.
 * A body that is not JSON is yielded as undefined (with its stream sequence), for the caller to skip.
 */
export async function* followSubject(
  nc: NatsConnection,
  stream: string,
  subject: string,
  signal: AbortSignal,
): AsyncGenerator<{ seq: number; body: unknown }> {
  // One subject as a string: the consumer then uses `filter_subject`, which every JetStream
  // server understands (an array becomes `filter_subjects`, which needs nats-server 2.10+).
  const consumer = await jetstream(nc).consumers.get(stream, {
    filter_subjects: subject,
    deliver_policy: DeliverPolicy.All,
  });
  const messages = await consumer.consume();
  const stop = (): void => void messages.close();
  signal.addEventListener('abort', stop, { once: true });
  // The reader may have been stopped while the consumer was being created: a listener added to
  // an aborted signal never fires, so stop here.
  if (signal.aborted) stop();
  try {
    for await (const message of messages) yield { seq: message.seq, body: jsonBody(message) };
  } finally {
    signal.removeEventListener('abort', stop);
    await messages.close();
  }
}
