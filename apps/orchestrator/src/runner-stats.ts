import type { orchestratorV1 } from '@platform/proto';
import type { Logger, NatsConnection } from '@platform/service-kit';
import type { CatalogEntry } from '@platform/tool-sdk';
import { z } from 'zod';

/** A runner replica's `$SRV.STATS` answer, the part the catalog shows (NATS micro protocol; times in nanoseconds). */
const ServiceStats = z.object({
  id: z.string(),
  version: z.string(),
  started: z.string(),
  endpoints: z
    .array(
      z.object({
        name: z.string(),
        num_requests: z.number(),
        num_errors: z.number(),
        last_error: z.string().optional(),
        processing_time: z.number(),
        average_processing_time: z.number(),
      }),
    )
    .optional(),
});
type ServiceStats = z.infer<typeof ServiceStats>;

const NANOS_PER_MS = 1_000_000;

/**
 * Asks each runner replica that serves a catalog tool for its `$SRV.STATS` (one request per
 * replica, in parallel, addressed by runner name and instance id), for GET /v1/tools. A replica
 * that does not answer within `waitMs` is shown without stats, never waited for longer.
 */
export class RunnerStats {
  constructor(
    private readonly nc: NatsConnection,
    private readonly options: { waitMs: number; logger: Logger },
  ) {}

  /** The tools' replicas with their stats for each tool's endpoint. */
  async instancesOf(tools: readonly CatalogEntry[]): Promise<Map<string, orchestratorV1.RunnerInstance[]>> {
    const replicas = new Map<string, string>();
    for (const tool of tools) for (const instance of tool.instances) replicas.set(instance, tool.runner);
    const stats = new Map(
      await Promise.all(
        [...replicas].map(async ([instance, runner]) => [instance, await this.ask(runner, instance)] as const),
      ),
    );
    return new Map(
      tools.map((tool) => [
        tool.name,
        tool.instances.map((instance) => instanceView(instance, tool.name, stats.get(instance))),
      ]),
    );
  }

  private async ask(runner: string, instance: string): Promise<ServiceStats | undefined> {
    try {
      const reply = await this.nc.request(`$SRV.STATS.${runner}.${instance}`, undefined, {
        timeout: this.options.waitMs,
      });
      const parsed = ServiceStats.safeParse(reply.json());
      if (!parsed.success)
        this.options.logger.warn({ runner, instance }, 'a runner answered $SRV.STATS with something else');
      return parsed.success ? parsed.data : undefined;
    } catch (err) {
      this.options.logger.debug({ runner, instance, err: (err as Error).message }, 'no $SRV.STATS answer in time');
      return undefined;
    }
  }
}

function instanceView(
  instanceId: string,
  tool: string,
  stats: ServiceStats | undefined,
): orchestratorV1.RunnerInstance {
  const endpoint = stats?.endpoints?.find((e) => e.name === tool);
  const started = stats ? new Date(stats.started) : undefined;
  return {
    instanceId,
    version: stats?.version ?? '',
    started: started && !Number.isNaN(started.getTime()) ? started : undefined,
    statsAvailable: endpoint !== undefined,
    requests: endpoint?.num_requests ?? 0,
    errors: endpoint?.num_errors ?? 0,
    lastError: endpoint?.last_error ?? '',
    processingMs: (endpoint?.processing_time ?? 0) / NANOS_PER_MS,
    averageProcessingMs: (endpoint?.average_processing_time ?? 0) / NANOS_PER_MS,
  };
}
