import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { JsonObject } from '../../ports/json.js';
import type { DeploymentState } from '../deployments/deployment-schema.js';
import { canTransition } from '../common/state-machine.js';
import type { DeployedModelState } from './deployed-model-schema.js';
import { deployedModelStateMachine } from './deployed-model-state-machine.js';

/** Model kinds deployed onto a deployment of their base model (LoRA-style add-ons). */
export const addonModelKinds: ReadonlySet<string> = new Set(['HUB_PEFT_ADDON', 'HUB_TEFT_ADDON', 'ENGINE_ADDON']);

/**
 * Checks that `model` may be deployed to `deployment`: the deployment's own base model always may; an
 * add-on needs `enableAddons` on the deployment (FAILED_PRECONDITION) and the deployment's base model as its
 * base (INVALID_ARGUMENT); any other model is INVALID_ARGUMENT. A DELETING or DELETED deployment is
 * FAILED_PRECONDITION.
 */
export function assertDeployable(model: JsonObject, deployment: JsonObject): void {
  const state = deployment.state as DeploymentState;
  if (state === 'DELETED' || state === 'DELETING') {
    throw failedPrecondition(`deployment ${String(deployment.name)} is ${state}`, { field: 'deployment', reason: 'DEPLOYMENT_DELETED' });
  }
  if (model.name === deployment.baseModel) return;
  if (!addonModelKinds.has(String(model.kind))) {
    throw invalidArgument(
      `model ${String(model.name)} is neither the base model of deployment ${String(deployment.name)} (${String(deployment.baseModel)}) nor an add-on of it`,
      { field: 'model' },
    );
  }
  const details = model.peftDetails as JsonObject | undefined;
  const base = details?.baseModel;
  if (base !== deployment.baseModel) {
    throw invalidArgument(
      `add-on ${String(model.name)} is built on ${String(base)}, but deployment ${String(deployment.name)} serves ${String(deployment.baseModel)}`,
      { field: 'model' },
    );
  }
  if (deployment.enableAddons !== true) {
    throw failedPrecondition(`deployment ${String(deployment.name)} does not enable add-ons (enableAddons is false)`, {
      field: 'deployment',
      reason: 'ADDONS_DISABLED',
    });
  }
}

/**
 * The state a deployed model should have, given its deployment's state; `remove` when the deployment is gone
 * (DELETED or hard-deleted). Keeps the current state when the state machine does not allow the move.
 */
export function deployedModelStateFor(deploymentState: DeploymentState | undefined, current: DeployedModelState): DeployedModelState | 'remove' {
  let target: DeployedModelState;
  switch (deploymentState) {
    case undefined:
    case 'DELETED':
      return 'remove';
    case 'DELETING':
      target = 'UNDEPLOYING';
      break;
    case 'READY':
      target = 'DEPLOYED';
      break;
    case 'UPDATING':
      target = current === 'DEPLOYED' ? 'UPDATING' : current;
      break;
    default:
      target = 'DEPLOYING';
  }
  if (target === current) return current;
  return canTransition(deployedModelStateMachine, current, target) ? target : current;
}
