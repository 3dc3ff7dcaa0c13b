import { createToken } from '../kernel/token.js';
import type { ModelService } from '../resources/models/model-service.js';
import type { DatasetService } from '../resources/datasets/dataset-service.js';
import type { DatasetFileService } from '../resources/datasets/dataset-files.js';
import type { UserService } from '../resources/users/user-service.js';
import type { DeploymentShapeService } from '../resources/deployment-shapes/deployment-shape-service.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import type { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import type { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import type { ResourceEnvironment } from '../resources/common/resource-environment.js';
import type { GatewaySecrets } from '../resources/common/secrets.js';
import type { ServingAdvisor } from '../resources/common/sizing.js';
import type { ApiKeyManager } from '../ports/api-keys.js';

/** The control plane's services, one per resource kind. Transports and hosts call these. */
export interface CoreServices {
  readonly models: ModelService;
  readonly datasets: DatasetService;
  /** The dataset upload and download flow (signed URLs, validation). */
  readonly datasetFiles: DatasetFileService;
  readonly users: UserService;
  readonly deploymentShapes: DeploymentShapeService;
  readonly deployments: DeploymentService;
  readonly deployedModels: DeployedModelService;
  readonly batchInferenceJobs: BatchInferenceJobService;
  readonly reinforcementFineTuningJobs: ReinforcementFineTuningJobService;
}

export const coreServicesToken = createToken<CoreServices>('CoreServices');
export const resourceEnvironmentToken = createToken<ResourceEnvironment>('ResourceEnvironment');
export const gatewaySecretsToken = createToken<GatewaySecrets>('GatewaySecrets');
export const servingAdvisorToken = createToken<ServingAdvisor>('ServingAdvisor');
export const apiKeyManagerToken = createToken<ApiKeyManager>('ApiKeyManager');
