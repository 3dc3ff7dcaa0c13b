import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../kernel/request-context.js';
import { customMethod, customMethodRoutes, snakeCase } from './custom-method.js';
import { emptySchema } from './resource-routes.js';
import { routeRequest } from './route-request-fixture.js';

class Jobs {
  readonly calls: string[] = [];
  async cancel(_ctx: RequestContext, name: string): Promise<{ state: string }> {
    this.calls.push(`cancel ${name}`);
    return { state: 'CANCELLED' };
  }
  async scale(_ctx: RequestContext, name: string, replicaCount: number): Promise<void> {
    this.calls.push(`scale ${name} ${replicaCount}`);
  }
}

const cancel = customMethod<Jobs>({
  verb: 'cancel', operationId: 'cancelJob', summary: 'Cancel a job', permission: 'jobs.action', run: (jobs, ctx, name) => jobs.cancel(ctx, name),
});
const scaleBody = { type: 'object', properties: { replicaCount: { type: 'integer', minimum: 0 } }, required: ['replicaCount'] } as const;
const scale = customMethod<Jobs, { replicaCount: number }>({
  method: 'PATCH', verb: 'scale', operationId: 'scaleJob', summary: 'Scale a job', permission: 'jobs.update', requestBody: scaleBody,
  run: (jobs, ctx, name, body) => jobs.scale(ctx, name, body.replicaCount),
});

describe('customMethod', () => {
  it('defaults to POST with an empty body and an empty answer, whatever the service answers', async () => {
    expect(cancel).toMatchObject({ method: 'POST', verb: 'cancel', operationId: 'cancelJob', permission: 'jobs.action', requestBody: emptySchema, response: emptySchema });
    const jobs = new Jobs();
    expect(await cancel.handle(jobs, 'accounts/a/jobs/j', routeRequest())).toEqual({});
    expect(await cancel.handle(jobs, 'accounts/a/jobs/j', routeRequest({ body: {} }))).toEqual({});
    expect(jobs.calls).toEqual(['cancel accounts/a/jobs/j', 'cancel accounts/a/jobs/j']);
  });

  it('answers what the service answers when a response schema is declared', async () => {
    const answering = customMethod<Jobs>({
      verb: 'cancel', operationId: 'cancelJob', summary: 'Cancel', permission: 'jobs.action', response: { type: 'object' },
      run: (jobs, ctx, name) => jobs.cancel(ctx, name),
    });
    expect(await answering.handle(new Jobs(), 'accounts/a/jobs/j', routeRequest())).toEqual({ state: 'CANCELLED' });
  });

  it('checks the body strictly against the declared schema before running', async () => {
    const jobs = new Jobs();
    await expect(cancel.handle(jobs, 'n', routeRequest({ body: { extra: 1 } }))).rejects.toMatchObject({ message: 'unknown field "extra" in request body' });
    await expect(scale.handle(jobs, 'n', routeRequest({ body: {} }))).rejects.toMatchObject({ message: 'field "replicaCount" is required' });
    await expect(scale.handle(jobs, 'n', routeRequest({ body: { replicaCount: -1 } }))).rejects.toThrow(/replicaCount/);
    expect(jobs.calls).toEqual([]);
    expect(await scale.handle(jobs, 'n', routeRequest({ body: { replicaCount: 3 } }))).toEqual({});
    expect(jobs.calls).toEqual(['scale n 3']);
    expect(scale).toMatchObject({ method: 'PATCH', requestBody: scaleBody });
  });

  it('leaves the body to the service when it checks it itself', async () => {
    const seen: unknown[] = [];
    const lenient = customMethod<Jobs>({
      verb: 'touch', operationId: 'touchJob', summary: 'Touch', permission: 'jobs.update', bodyCheckedBy: 'service',
      requestBody: { type: 'object', properties: { size: { type: 'string' } } },
      run: async (_jobs, _ctx, _name, body) => void seen.push(body),
    });
    await lenient.handle(new Jobs(), 'n', routeRequest({ body: { size: 5, other: true } }));
    await lenient.handle(new Jobs(), 'n', routeRequest());
    expect(seen).toEqual([{ size: 5, other: true }, {}]);
  });
});

describe('customMethodRoutes', () => {
  it('serves each method at `{<kind>_id}:<verb>` under the account, on the resource the path names', async () => {
    const jobs = new Jobs();
    const routes = customMethodRoutes({ definition: { collection: 'trainingJobs', singular: 'trainingJob' }, tag: 'Jobs' }, [cancel, scale], jobs);
    expect(routes.map((r) => `${r.method} ${r.path} ${r.operationId} ${r.permission} ${r.tag}`)).toEqual([
      'POST /v1/accounts/{account_id}/trainingJobs/{training_job_id}:cancel cancelJob jobs.action Jobs',
      'PATCH /v1/accounts/{account_id}/trainingJobs/{training_job_id}:scale scaleJob jobs.update Jobs',
    ]);
    await routes[1]!.handle(routeRequest({ params: { account_id: 'acme', training_job_id: 't1' }, body: { replicaCount: 2 } }));
    expect(jobs.calls).toEqual(['scale accounts/acme/trainingJobs/t1 2']);
  });

  it('names path parameters in snake_case', () => {
    expect(snakeCase('reinforcementFineTuningJob')).toBe('reinforcement_fine_tuning_job');
    expect(snakeCase('model')).toBe('model');
  });
});
