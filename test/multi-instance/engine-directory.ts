import { notFound, type ServingDirectory } from '@berth/core';

/**
 * The serving directory of the kill tests' gateway processes: every model of the account (add-ons too,
 * named alone or as `model#deployment`) goes to one reference engine (started by the test) as its base
 * model `reference-model`, on the deployment `accounts/{account}/deployments/engine`. Requests still go
 * through the transport's inference proxy, as chat completions do. It loads no adapter: a fine-tuning
 * job's rollouts there come from the base model whatever the policy.
 */
export function engineDirectory(engineUrl: string, account: string): ServingDirectory {
  return {
    async resolve(_ctx, name) {
      const model = name.split('#')[0] ?? name;
      if (!model.startsWith(`accounts/${account}/models/`)) throw notFound(model);
      return { accountId: account, model, deployment: `accounts/${account}/deployments/engine` };
    },
    async acquire(_ctx, target) {
      return { replicaId: 'engine', deployment: target.deployment, endpoint: engineUrl, servedModelId: 'reference-model', release() {} };
    },
  };
}
