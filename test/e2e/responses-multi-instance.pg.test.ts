import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway, definePlugin, notFound, queueWorkers, servingDirectoryToken, startReferenceEngine,
  type Gateway, type GatewayPlugin, type ReferenceEngine, type ServingDirectory,
} from '@berth/core';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { pglitePool, postgresStorage } from '@berth/plugin-storage-postgres';
import { serveGateway, type RunningServer } from '@berth/plugin-transport-fastify';

/**
 * Two gateway instances on one PostgreSQL schema (DATABASE_URL, or one embedded PGlite both share): a
 * response created on one is retrieved, continued and deleted on the other at once. Serving is a
 * directory that sends both to one reference engine. Only the second runs queue workers (one at a
 * time): background responses created on the first are run there.
 */
const account = 'acme';
const apiKey = 'responses-multi-instance-key-0123456789';
const model = `accounts/${account}/models/m`;

function oneEngine(engine: () => ReferenceEngine): GatewayPlugin {
  const directory: ServingDirectory = {
    async resolve(_ctx, name) {
      if (name !== model) throw notFound(name);
      return { accountId: account, model, deployment: `accounts/${account}/deployments/d` };
    },
    async acquire(_ctx, target) {
      return { replicaId: 'r', deployment: target.deployment, endpoint: engine().url, servedModelId: 'reference-model', release() {} };
    },
  };
  return definePlugin({ id: 'one-engine', register: (binder) => binder.bindValue(servingDirectoryToken, directory, { override: true }) });
}

describe('Responses API on two gateway instances sharing PostgreSQL', () => {
  const schema = `berth_responses_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const databaseUrl = process.env.DATABASE_URL || undefined;
  let pglite: PGlite | undefined;
  let engine: ReferenceEngine;
  const gateways: Gateway[] = [];
  const servers: RunningServer[] = [];
  let a: OpenAI;
  let b: OpenAI;

  beforeAll(async () => {
    engine = await startReferenceEngine({ modelIds: ['reference-model'] });
    if (databaseUrl === undefined) pglite = await PGlite.create();
    const storage = () => (pglite ? postgresStorage({ pool: pglitePool(pglite), schema }) : postgresStorage({ connectionString: databaseUrl!, schema }));
    // One after the other: the first runs the migrations and creates the bootstrap key.
    for (let i = 0; i < 2; i += 1) {
      const workers = i === 1 ? [queueWorkers({ pollIntervalMs: 20, concurrency: 1 })] : [];
      const gateway = createGateway({
        plugins: [storage(), ...workers, apiKeyAuth({ cacheTtlMs: 0 }), oneEngine(() => engine)],
        config: { bootstrapAccountId: account, bootstrapApiKey: apiKey },
      });
      await gateway.start();
      gateways.push(gateway);
      servers.push(await serveGateway(gateway));
    }
    [a, b] = servers.map((server) => new OpenAI({ apiKey, baseURL: `${server.url}/inference/v1`, maxRetries: 0 })) as [OpenAI, OpenAI];
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    for (const gateway of gateways) await gateway.stop();
    await engine?.close();
    if (pglite) await pglite.close();
    else if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    }
  });

  it('continues on one instance the conversation the other just stored', async () => {
    const first = await a.responses.create({ model, input: 'My name is Ada' });
    expect((await b.responses.retrieve(first.id)).output_text).toBe(first.output_text);
    const second = await b.responses.create({ model, input: 'What is my name?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    const third = await a.responses.create({ model, input: 'And again?', previous_response_id: second.id });
    const items = await b.responses.inputItems.list(third.id, { order: 'asc' });
    expect(items.data.map((item) => item.type === 'message' ? item.role : item.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    const listed = await fetch(`${servers[0]!.url}/inference/v1/responses?limit=3`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await listed.json()) as { data: Array<{ id: string }> }).data.map((r) => r.id)).toEqual([third.id, second.id, first.id]);
    await b.responses.delete(first.id);
    await expect(a.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    // The later responses carry their own copy of the conversation: deleting the first does not break the chain.
    expect((await a.responses.create({ model, input: 'Still there?', previous_response_id: third.id })).status).toBe('completed');
  });

  /** Retrieves on `on` until the response leaves queued / in_progress (or `until` holds). */
  async function poll(on: OpenAI, id: string, until = (status: string) => status !== 'queued' && status !== 'in_progress'): Promise<OpenAI.Responses.Response> {
    for (let i = 0; ; i += 1) {
      const response = await on.responses.retrieve(id);
      if (until(response.status ?? '') || i > 1000) return response;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('runs on the second instance’s workers a background response created on the first', async () => {
    const created = await a.responses.create({ model, input: 'Say hello', background: true });
    expect(created).toMatchObject({ status: 'queued', background: true });
    const done = await poll(a, created.id);
    expect(done.status).toBe('completed');
    expect(done.output_text.length).toBeGreaterThan(0);
  });

  it('stops, from the first instance, the generation the second instance runs', async () => {
    // Minutes before the first token: only a cancel that reaches the worker on b frees its only slot.
    engine.setSpeed({ timeToFirstTokenMs: 120_000 });
    const slow = await a.responses.create({ model, input: 'Write a very long story', background: true });
    expect((await poll(a, slow.id, (status) => status === 'in_progress')).status).toBe('in_progress');
    const cancelled = await a.responses.cancel(slow.id);
    expect(cancelled.status).toBe('cancelled');
    engine.setSpeed({});
    const next = await a.responses.create({ model, input: 'Say hello', background: true });
    expect((await poll(b, next.id)).status).toBe('completed');
    expect((await b.responses.retrieve(slow.id)).status).toBe('cancelled');
  });

  it('hands a running background response back to the queue when the instance running it closes its server', async () => {
    engine.setSpeed({ timeToFirstTokenMs: 120_000 });
    const created = await a.responses.create({ model, input: 'Write a very long story', background: true });
    expect((await poll(a, created.id, (status) => status === 'in_progress')).status).toBe('in_progress');
    engine.setSpeed({});
    // Without the hand-over the close would wait for the two-minute generation (and then fail it).
    await servers[1]!.close();
    servers[1] = await serveGateway(gateways[1]!);
    const done = await poll(a, created.id);
    expect(done.status).toBe('completed');
    expect(done.output_text.length).toBeGreaterThan(0);
  });
});
