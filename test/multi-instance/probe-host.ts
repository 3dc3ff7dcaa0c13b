/**
 * A gateway process for the multi-instance test: the PostgreSQL template plus a probe queue handler.
 * Each job sleeps PROBE_JOB_MS (outside any transaction, like real work), then commits its effect — a
 * resource `accounts/probe/effects/{jobId}-a{attempt}` — together with the job's completion. A second
 * effect for one job would show up as a second row, so the test counts rows, not log lines.
 * Prints one JSON line `{"url": …, "pid": …}` on stdout once listening.
 */
import { definePlugin, defineQueueHandler, queueHandlersToken } from '@berth/core';
import { runPostgresGateway } from '@berth/template-gateway-postgres';

const jobMs = Number(process.env.PROBE_JOB_MS ?? 300);
const leaseMs = Number(process.env.PROBE_LEASE_MS ?? 3000);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('lease lost'));
    });
  });

const probe = definePlugin({
  id: 'multi-instance-probe',
  register(binder) {
    binder.contribute(
      queueHandlersToken,
      defineQueueHandler({
        queue: 'probe',
        leaseMs,
        async handle(ctx, job) {
          await sleep(jobMs, ctx.signal);
          await ctx.commit((tx) =>
            tx.resources.create(ctx, `accounts/probe/effects/${job.id}-a${job.attempt}`, { jobId: job.id, attempt: job.attempt, workerId: ctx.workerId }),
          );
          return { workerId: ctx.workerId };
        },
      }),
    );
  },
});

const server = await runPostgresGateway([probe]);
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
