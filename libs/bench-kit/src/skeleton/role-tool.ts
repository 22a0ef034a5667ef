// The skeleton's tool runner: answers `calculator` requests on NATS with the same work (mathjs) and
// output as the in-process peers' tool.
import { connect } from '@nats-io/transport-node';
import { calculate } from '../calculator.js';
import { announceReady, exitOnTerm, required, TOOL_SUBJECT } from './role-env.js';

const nc = await connect({ servers: required('NATS_URL'), name: 'skeleton-tool' });
const subscription = nc.subscribe(TOOL_SUBJECT, {
  queue: 'skeleton-tools',
  callback: (err, msg) => {
    if (err) return;
    try {
      const { expression } = msg.json<{ expression: string }>();
      msg.respond(JSON.stringify({ ok: true, output: calculate(expression) }));
    } catch (error) {
      msg.respond(JSON.stringify({ ok: false, error: (error as Error).message }));
    }
  },
});
await nc.flush();
announceReady(0);
exitOnTerm(async () => {
  subscription.unsubscribe();
  await nc.close();
});
