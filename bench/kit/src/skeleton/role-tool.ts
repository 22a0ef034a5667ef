// The skeleton's tool runner: answers `calculator` requests on NATS with the same work (mathjs) and
// output as the in-process peers' tool.
import { connect } from '@nats-io/transport-node';
import { calculate } from '../calculator.js';
import { announceReady, DUTIES, exitOnTerm, required, TOOL_SUBJECT } from './role-env.js';
import { inSpan } from './trace-context.js';

const nc = await connect({ servers: required('NATS_URL'), name: 'skeleton-tool' });
const subscription = nc.subscribe(TOOL_SUBJECT, {
  queue: 'skeleton-tools',
  callback: (err, msg) => {
    if (err) return;
    const answer = async (): Promise<void> => {
      try {
        const { expression } = msg.json<{ expression: string }>();
        msg.respond(JSON.stringify({ ok: true, output: calculate(expression) }));
      } catch (error) {
        msg.respond(JSON.stringify({ ok: false, error: (error as Error).message }));
      }
    };
    // With the duties on, the call continues the orchestrator's trace.
    void (DUTIES.has('tracing') ? inSpan('calculator', answer, msg.headers) : answer());
  },
});
await nc.flush();
announceReady(0);
exitOnTerm(async () => {
  subscription.unsubscribe();
  await nc.close();
});
