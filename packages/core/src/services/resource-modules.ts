import { defineResourceModule, defineRouteModule, type ResourceModule } from '../api/resource-module.js';
import { acceleratorRuntimesToken, principalChangeListenersToken, servingAdvisorToken } from '../kernel/tokens.js';
import {
  batchInferenceJobServiceToken, datasetFileServiceToken, datasetServiceToken, deployedModelServiceToken, deploymentDeletionGuardsToken,
  deploymentObserversToken, deploymentServiceToken, deploymentShapeServiceToken, gatewaySecretsToken, modelFileServiceToken, modelServiceToken,
  reinforcementFineTuningJobServiceToken, resourceEnvironmentToken, trainingFilesToken, userDeletionHooksToken, userServiceToken, evaluatorServiceToken, queueWakeupsToken,
} from './tokens.js';
import { ModelService } from '../resources/models/model-service.js';
import { modelApi } from '../resources/models/model-api.js';
import { modelFileRoutes } from '../resources/models/model-file-api.js';
import { DatasetService } from '../resources/datasets/dataset-service.js';
import { datasetApi } from '../resources/datasets/dataset-api.js';
import { datasetFileRoutes } from '../resources/datasets/dataset-file-api.js';
import { UserService } from '../resources/users/user-service.js';
import { userApi } from '../resources/users/user-api.js';
import { DeploymentShapeService } from '../resources/deployment-shapes/deployment-shape-service.js';
import { deploymentShapeApi } from '../resources/deployment-shapes/deployment-shape-api.js';
import { DeploymentService } from '../resources/deployments/deployment-service.js';
import { deploymentApi } from '../resources/deployments/deployment-api.js';
import { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import { deployedModelApi } from '../resources/deployed-models/deployed-model-api.js';
import { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import { batchInferenceJobApi } from '../resources/batch-inference-jobs/batch-inference-job-api.js';
import { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import { reinforcementFineTuningJobApi } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-api.js';
import { EvaluatorService } from '../resources/evaluators/evaluator-service.js';
import { evaluatorApi } from '../resources/evaluators/evaluator-api.js';
import { trainingFileRoutes } from '../training-files/training-file-api.js';

const env = [resourceEnvironmentToken, gatewaySecretsToken] as const;

/**
 * Every resource kind core serves, one line each: its service binding (declared dependencies) and its
 * HTTP surface (`<kind>-api.ts` in the resource folder). The route table and the OpenAPI paths are
 * generated from this list, in this order.
 */
export const coreResourceModules: readonly ResourceModule[] = [
  defineResourceModule({ api: modelApi, service: { token: modelServiceToken, deps: env, factory: (e, s) => new ModelService(e, s) } }),
  defineResourceModule({ api: datasetApi, service: { token: datasetServiceToken, deps: env, factory: (e, s) => new DatasetService(e, s) } }),
  // Dataset files: the upload/download custom methods and the signed file URLs (the service is bound in core-module.ts).
  defineRouteModule({ collection: 'datasets', service: datasetFileServiceToken, routes: datasetFileRoutes }),
  // Model files: upload, validation and download custom methods and the signed file URLs (service bound in core-module.ts).
  defineRouteModule({ collection: 'models', service: modelFileServiceToken, routes: modelFileRoutes }),
  defineResourceModule({
    api: userApi,
    service: {
      token: userServiceToken,
      deps: [...env, principalChangeListenersToken, userDeletionHooksToken],
      factory: (e, s, listeners, hooks) => new UserService(e, s, listeners, hooks),
    },
  }),
  defineResourceModule({
    api: deploymentShapeApi,
    service: { token: deploymentShapeServiceToken, deps: [...env, servingAdvisorToken], factory: (e, s, a) => new DeploymentShapeService(e, s, a) },
  }),
  defineResourceModule({
    api: deploymentApi,
    service: {
      token: deploymentServiceToken,
      deps: [...env, servingAdvisorToken, deploymentDeletionGuardsToken, deploymentObserversToken, acceleratorRuntimesToken],
      factory: (e, s, advisor, deletionGuards, observers, runtimes) =>
        // The reconciler (started when runtimes exist) finishes deletions: DELETING → DELETED once replicas stop.
        // Without one, new deployments stay CREATING with a status naming the runtime plugin to add.
        new DeploymentService(e, s, { advisor, deletionGuards, observers, reconciledDeletion: runtimes.length > 0, runtimesInstalled: runtimes.length > 0 }),
    },
  }),
  defineResourceModule({ api: deployedModelApi, service: { token: deployedModelServiceToken, deps: env, factory: (e, s) => new DeployedModelService(e, s) } }),
  defineResourceModule({
    api: batchInferenceJobApi,
    service: { token: batchInferenceJobServiceToken, deps: env, factory: (e, s) => new BatchInferenceJobService(e, s) },
  }),
  defineResourceModule({
    api: reinforcementFineTuningJobApi,
    service: { token: reinforcementFineTuningJobServiceToken, deps: env, factory: (e, s) => new ReinforcementFineTuningJobService(e, s) },
  }),
  // Training step files: the signed URLs accelerator trainers read inputs from and write checkpoints to (service bound in core-module.ts).
  defineRouteModule({ collection: 'reinforcementFineTuningJobs', service: trainingFilesToken, routes: trainingFileRoutes }),
  defineResourceModule({ api: evaluatorApi, service: { token: evaluatorServiceToken, deps: [...env, queueWakeupsToken], factory: (e, s, w) => new EvaluatorService(e, s, w) } }),
];
