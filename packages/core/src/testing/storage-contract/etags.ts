import { describe, expect, it } from 'vitest';
import { Code } from '../../errors/code.js';
import type { RequestContext } from '../../kernel/request-context.js';
import { systemClock } from '../../ports/clock.js';
import { randomIdGenerator } from '../../ports/id-generator.js';
import { ResourceEnvironment } from '../../resources/common/resource-environment.js';
import { GatewaySecrets } from '../../resources/common/secrets.js';
import { ModelService } from '../../resources/models/model-service.js';
import { ctx as baseCtx, uid, type StorageGetter } from './support.js';

const RACERS = 50;

const baseModel = { kind: 'HUB_BASE_MODEL', displayName: 'm', baseModelDetails: { checkpointFormat: 'HUB', hubFiles: ['model.safetensors'], modelType: 'llama' }, contextLength: 8192 };

/**
 * AIP-154 etags through a resource service on this storage: every answer carries the resource's etag;
 * an update or delete that sends one applies only while it is current (ABORTED otherwise); without one,
 * concurrent updates all apply, one after another (last writer wins, no spurious ABORTED).
 */
export function etagTests(storage: StorageGetter): void {
  describe('etags through a resource service (AIP-154)', () => {
    const setup = async (): Promise<{ models: ModelService; ctx: RequestContext; name: string; etag: string }> => {
      const secrets = new GatewaySecrets('contract-secret');
      await secrets.load(baseCtx, storage().kv);
      const models = new ModelService(new ResourceEnvironment(storage(), systemClock, randomIdGenerator), secrets);
      const accountId = uid('acct');
      const ctx: RequestContext = { requestId: uid('r'), principal: { userName: `accounts/${accountId}/users/admin`, accountId, role: 'admin', email: 'a@example.com' } };
      const created = await models.create(ctx, accountId, baseModel, 'm');
      expect(typeof created.etag).toBe('string');
      return { models, ctx, name: String(created.name), etag: String(created.etag) };
    };

    it('every answer carries the current etag; it changes on every write', async () => {
      const { models, ctx, name, etag } = await setup();
      expect((await models.get(ctx, name)).etag).toBe(etag);
      expect((await models.get(ctx, name, 'displayName,etag')).etag).toBe(etag);
      const updated = await models.update(ctx, name, { displayName: 'n1' }, 'displayName');
      expect(updated.etag).not.toBe(etag);
      expect((await models.get(ctx, name)).etag).toBe(updated.etag);
      const accountId = name.split('/')[1]!;
      expect((await models.list(ctx, accountId, {})).items.map((item) => item.etag)).toEqual([updated.etag]);
    });

    it('an update or delete with a stale etag (body or option) is ABORTED and changes nothing; a current one applies', async () => {
      const { models, ctx, name, etag } = await setup();
      const fresh = await models.update(ctx, name, { displayName: 'n1', etag }, 'displayName');
      await expect(models.update(ctx, name, { displayName: 'n2', etag }, 'displayName')).rejects.toMatchObject({ code: Code.ABORTED });
      await expect(models.update(ctx, name, { displayName: 'n2' }, 'displayName', { etag })).rejects.toMatchObject({ code: Code.ABORTED });
      await expect(models.update(ctx, name, { displayName: 'n2', etag: String(fresh.etag) }, 'displayName', { etag })).rejects.toMatchObject({ code: Code.ABORTED });
      await expect(models.update(ctx, name, { displayName: 'n2', etag: 7 }, 'displayName')).rejects.toMatchObject({ code: Code.INVALID_ARGUMENT });
      await expect(models.delete(ctx, name, { etag })).rejects.toMatchObject({ code: Code.ABORTED });
      expect(await models.get(ctx, name)).toMatchObject({ displayName: 'n1', etag: fresh.etag });
      const wildcard = await models.update(ctx, name, { displayName: 'n3' }, 'displayName', { etag: '*' });
      const current = await models.update(ctx, name, { displayName: 'n4', etag: String(wildcard.etag) }, 'displayName', { etag: String(wildcard.etag) });
      expect(current.displayName).toBe('n4');
      await models.delete(ctx, name, { etag: String(current.etag) });
      await expect(models.get(ctx, name)).rejects.toMatchObject({ code: Code.NOT_FOUND });
    });

    it(`${RACERS} concurrent updates without an etag all apply (last writer wins, none ABORTED)`, async () => {
      const { models, ctx, name } = await setup();
      const results = await Promise.allSettled(
        Array.from({ length: RACERS }, (_, i) => models.update(ctx, name, { description: `writer ${i}` }, 'description')),
      );
      const rejected = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
      expect(rejected).toEqual([]);
      const etags = new Set(results.map((r) => (r.status === 'fulfilled' ? r.value.etag : undefined)));
      expect(etags.size).toBe(RACERS);
      expect(String((await models.get(ctx, name)).description)).toMatch(/^writer \d+$/);
    });

    it(`${RACERS} concurrent updates sending the same etag: exactly one wins, the others are ABORTED`, async () => {
      const { models, ctx, name, etag } = await setup();
      const results = await Promise.allSettled(
        Array.from({ length: RACERS }, (_, i) => models.update(ctx, name, { description: `writer ${i}`, etag }, 'description')),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code?: unknown }).code] : []));
      expect(new Set(codes)).toEqual(new Set([Code.ABORTED]));
    });
  });
}
