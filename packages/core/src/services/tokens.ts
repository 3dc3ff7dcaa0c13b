/**
 * The tokens of core's own services, one per service, and of the extension points whose types belong to
 * core's resources and serving layer. This folder is the composition layer (it sits above resources,
 * serving and workers), so the tokens can name those types without a layering cycle. Port tokens are in
 * `kernel/tokens.ts`.
 */
import { createMultiToken, createToken } from '../kernel/token.js';
import type { QueueHandler } from '../workers/queue-handler.js';
import type { QueueWakeups } from '../workers/queue-wakeups.js';
import type { ServingOptions } from '../serving/serving-options.js';
import type { ServingLoad } from '../serving/serving-load.js';
import type { DeploymentReconciler } from '../serving/deployment-reconciler.js';
import type { ResourceEnvironment } from '../resources/common/resource-environment.js';
import type { GatewaySecrets } from '../resources/common/secrets.js';
import type { ModelFileSources } from '../serving/model-file-sources.js';
import type { ModelService } from '../resources/models/model-service.js';
import type { DatasetService } from '../resources/datasets/dataset-service.js';
import type { DatasetFileService } from '../resources/datasets/dataset-files.js';
import type { ModelFileService } from '../resources/models/model-file-service.js';
import type { UserDeletionHook, UserService } from '../resources/users/user-service.js';
import type { DeploymentShapeService } from '../resources/deployment-shapes/deployment-shape-service.js';
import type { DeploymentDeletionGuard, DeploymentObserver, DeploymentService } from '../resources/deployments/deployment-service.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import type { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import type { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import type { EvaluatorService } from '../resources/evaluators/evaluator-service.js';
import type { CoreServices } from './core-services.js';
import type { ImageService } from '../images/image-service.js';
import type { TrainingFiles } from '../training-files/training-files.js';

// Multi-bindings.
/** Durable work handlers, run by `queueWorkers()`: `binder.contribute(queueHandlersToken, defineQueueHandler({...}))`. */
export const queueHandlersToken = createMultiToken<QueueHandler>('QueueHandlers');
/** Checks a deployment deletion must pass (unless `ignoreChecks`). */
export const deploymentDeletionGuardsToken = createMultiToken<DeploymentDeletionGuard>('DeploymentDeletionGuards');
/** Told about deployment changes (e.g. deployed models follow their deployment). */
export const deploymentObserversToken = createMultiToken<DeploymentObserver>('DeploymentObservers');
/** Run when a user is deleted (e.g. its API keys are revoked). */
export const userDeletionHooksToken = createMultiToken<UserDeletionHook>('UserDeletionHooks');

// Core's building blocks.
export const resourceEnvironmentToken = createToken<ResourceEnvironment>('ResourceEnvironment', { providedBy: 'core' });
export const gatewaySecretsToken = createToken<GatewaySecrets>('GatewaySecrets', { providedBy: 'core' });
/** Wakes this process's queue workers right after an enqueue (the `queueWorkers()` pool subscribes). */
export const queueWakeupsToken = createToken<QueueWakeups>('QueueWakeups', { providedBy: 'core' });
/** Serving tunables; core binds `{}` (the defaults). Override with `servingOptions()`. */
export const servingOptionsToken = createToken<ServingOptions>('ServingOptions', { providedBy: 'core' });
export const servingLoadToken = createToken<ServingLoad>('ServingLoad', { providedBy: 'core' });
export const deploymentReconcilerToken = createToken<DeploymentReconciler>('DeploymentReconciler', { providedBy: 'core' });
/** Where replicas find uploaded model files (base weights, add-ons): the blob store, by default. */
export const modelFileSourcesToken = createToken<ModelFileSources>('ModelFileSources', { providedBy: 'core' });

// Core's services, one token each.
export const modelServiceToken = createToken<ModelService>('ModelService', { providedBy: 'core' });
export const datasetServiceToken = createToken<DatasetService>('DatasetService', { providedBy: 'core' });
export const datasetFileServiceToken = createToken<DatasetFileService>('DatasetFileService', { providedBy: 'core' });
export const modelFileServiceToken = createToken<ModelFileService>('ModelFileService', { providedBy: 'core' });
/** The files of reinforcement fine-tuning steps and their signed URLs (what accelerator trainers read and write). */
export const trainingFilesToken = createToken<TrainingFiles>('TrainingFiles', { providedBy: 'core' });
export const userServiceToken = createToken<UserService>('UserService', { providedBy: 'core' });
export const deploymentShapeServiceToken = createToken<DeploymentShapeService>('DeploymentShapeService', { providedBy: 'core' });
export const deploymentServiceToken = createToken<DeploymentService>('DeploymentService', { providedBy: 'core' });
export const deployedModelServiceToken = createToken<DeployedModelService>('DeployedModelService', { providedBy: 'core' });
export const batchInferenceJobServiceToken = createToken<BatchInferenceJobService>('BatchInferenceJobService', { providedBy: 'core' });
export const reinforcementFineTuningJobServiceToken = createToken<ReinforcementFineTuningJobService>('ReinforcementFineTuningJobService', {
  providedBy: 'core',
});
export const evaluatorServiceToken = createToken<EvaluatorService>('EvaluatorService', { providedBy: 'core' });
/** A read-only facade over the service tokens above, for hosts and transports. */
/** Image generation (spec endpoints 11 and 12). */
export const imageServiceToken = createToken<ImageService>('ImageService', { providedBy: 'core' });
export const coreServicesToken = createToken<CoreServices>('CoreServices', { providedBy: 'core' });
