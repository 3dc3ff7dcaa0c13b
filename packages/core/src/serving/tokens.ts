import { createToken } from '../kernel/token.js';
import type { DeploymentReconciler } from './deployment-reconciler.js';
import type { ServingLoad } from './serving-load.js';

export const servingLoadToken = createToken<ServingLoad>('ServingLoad');
export const deploymentReconcilerToken = createToken<DeploymentReconciler>('DeploymentReconciler');
