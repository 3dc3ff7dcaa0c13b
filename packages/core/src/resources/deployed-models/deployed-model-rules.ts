import { failedPrecondition, invalidArgument } from '../../errors/index.js';
import type { Deployment, DeploymentState } from '../deployments/deployment-schema.js';
import type { Model } from '../models/model-schema.js';
import { canTransition } from '../common/state-machine.js';
import type { DeployedModelState } from './deployed-model-schema.js';
import { deployedModelStateMachine } from './deployed-model-state-machine.js';

/** Model kinds deployed onto a deployment of their base model (LoRA-style add-ons). */
export const addonModelKinds: ReadonlySet<string> = new Set(['HUB_PEFT_ADDON', 'HUB_TEFT_ADDON', 'ENGINE_ADDON']);

/**
 * Checks that `model` may be deployed to `deployment`: the deployment's own base model always may; an
 * add-on needs `enableAddons` on the deployment (FAILED_PRECONDITION) and the deployment's base model as its
 * base (INVALID_ARGUMENT); any other model is INVALID_ARGUMENT. A DELETING or DELETED deployment, and an
 * add-on whose upload is not validated yet (UPLOADING), are FAILED_PRECONDITION.
 */
export function assertDeployable(model: Model, deployment: Deployment): void {
  const state = deployment.state;
  if (state === 'DELETED' || state === 'DELETING') {
    throw failedPrecondition(`deployment ${deployment.name} is ${state}`, { field: 'deployment', reason: 'DEPLOYMENT_DELETED' });
  }
  if (model.name === deployment.baseModel) return;
  if (model.kind === undefined || !addonModelKinds.has(model.kind)) {
    throw invalidArgument(
      `model ${model.name} is neither the base model of deployment ${deployment.name} (${deployment.baseModel}) nor an add-on of it`,
      { field: 'model' },
    );
  }
  const base = model.peftDetails?.baseModel;
  if (base !== deployment.baseModel) {
    throw invalidArgument(
      `add-on ${model.name} is built on ${base}, but deployment ${deployment.name} serves ${deployment.baseModel}`,
      { field: 'model' },
    );
  }
  if (deployment.enableAddons !== true) {
    throw failedPrecondition(`deployment ${deployment.name} does not enable add-ons (enableAddons is false)`, {
      field: 'deployment',
      reason: 'ADDONS_DISABLED',
    });
  }
  if (model.state === 'UPLOADING') {
    throw failedPrecondition(`add-on ${model.name} is UPLOADING: upload and validate its files (:validateUpload) before deploying it`, {
      field: 'model',
      reason: 'MODEL_NOT_READY',
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
