import type { ModelService } from '../resources/models/model-service.js';
import type { DatasetService } from '../resources/datasets/dataset-service.js';
import type { DatasetFileService } from '../resources/datasets/dataset-files.js';
import type { ModelFileService } from '../resources/models/model-file-service.js';
import type { UserService } from '../resources/users/user-service.js';
import type { DeploymentShapeService } from '../resources/deployment-shapes/deployment-shape-service.js';
import type { DeploymentService } from '../resources/deployments/deployment-service.js';
import type { DeployedModelService } from '../resources/deployed-models/deployed-model-service.js';
import type { BatchInferenceJobService } from '../resources/batch-inference-jobs/batch-inference-job-service.js';
import type { ReinforcementFineTuningJobService } from '../resources/reinforcement-fine-tuning-jobs/reinforcement-fine-tuning-job-service.js';
import type { EvaluatorService } from '../resources/evaluators/evaluator-service.js';

/**
 * A read-only facade over the control plane's services, one per resource kind, for hosts and transports.
 * Assembled from the individual service tokens (`modelServiceToken`, ...); core's own bindings depend on
 * those tokens, never on this facade.
 */
export interface CoreServices {
  readonly models: ModelService;
  readonly datasets: DatasetService;
  /** The dataset upload and download flow (signed URLs, validation). */
  readonly datasetFiles: DatasetFileService;
  /** The model upload and download flow (signed URLs, validation of checkpoints and add-ons). */
  readonly modelFiles: ModelFileService;
  readonly users: UserService;
  readonly deploymentShapes: DeploymentShapeService;
  readonly deployments: DeploymentService;
  readonly deployedModels: DeployedModelService;
  readonly batchInferenceJobs: BatchInferenceJobService;
  readonly reinforcementFineTuningJobs: ReinforcementFineTuningJobService;
  readonly evaluators: EvaluatorService;
}
