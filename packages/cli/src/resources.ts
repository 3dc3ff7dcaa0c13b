/**
 * Every control-plane resource the CLI drives, one entry each: adding a kind to the gateway is adding
 * an entry here (routes, flags and table columns); the commands, completion and help follow from it.
 */
import type { Column, FieldFlag, ResourceSpec } from './resource-spec.js';

const displayName: FieldFlag = { flag: 'display-name', path: 'displayName', type: 'string', description: 'human-readable name' };
const description: FieldFlag = { flag: 'description', path: 'description', type: 'string', description: 'free text' };
const accelerator: FieldFlag[] = [
  { flag: 'accelerator-type', path: 'acceleratorType', type: 'string', description: 'accelerator type, e.g. GPUX_H100_80GB' },
  { flag: 'accelerator-count', path: 'acceleratorCount', type: 'int', description: 'accelerators per replica', placeholder: '<count>' },
  { flag: 'precision', path: 'precision', type: 'string', description: 'serving precision, e.g. FP16, FP8' },
];
const id: Column = { header: 'ID', path: 'name', short: true };
const state: Column = { header: 'STATE', path: 'state' };
const created: Column = { header: 'CREATED', path: 'createTime' };
const progress: Column = { header: 'PROGRESS', path: 'jobProgress.percent' };
const jobCreate = (idParam: string) => ({ id: 'query', idParam }) as const;

export const resources: readonly ResourceSpec[] = [
  {
    command: 'models',
    singular: 'model',
    collection: 'models',
    listKey: 'models',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'body', idParam: 'modelId', bodyKey: 'model', idRequired: true },
    fields: [
      displayName,
      description,
      { flag: 'kind', path: 'kind', type: 'string', description: 'HUB_BASE_MODEL, HUB_PEFT_ADDON, HUB_TEFT_ADDON…', createOnly: true },
      { flag: 'context-length', path: 'contextLength', type: 'int', description: 'context window in tokens', placeholder: '<tokens>' },
      { flag: 'model-type', path: 'baseModelDetails.modelType', type: 'string', description: 'architecture of a base model, e.g. llama' },
      { flag: 'parameter-count', path: 'baseModelDetails.parameterCount', type: 'int64', description: 'parameters of a base model', createOnly: true, placeholder: '<count>' },
      { flag: 'checkpoint-format', path: 'baseModelDetails.checkpointFormat', type: 'string', description: 'HUB, …' },
      { flag: 'hub-files', path: 'baseModelDetails.hubFiles', type: 'list', description: 'comma-separated checkpoint files', placeholder: '<files>' },
      { flag: 'base-model', path: 'peftDetails.baseModel', type: 'string', description: 'base model of an addon', createOnly: true },
      { flag: 'public', path: 'public', type: 'bool', description: 'visible to other accounts' },
    ],
    columns: [id, { header: 'DISPLAY NAME', path: 'displayName' }, { header: 'KIND', path: 'kind' }, state, created],
  },
  {
    command: 'datasets',
    singular: 'dataset',
    collection: 'datasets',
    listKey: 'datasets',
    operations: ['create', 'get', 'list', 'delete'],
    create: { id: 'body', idParam: 'datasetId', bodyKey: 'dataset', idRequired: true },
    fields: [
      displayName,
      { flag: 'format', path: 'format', type: 'string', description: 'CHAT, COMPLETION, RL or FORMAT_UNSPECIFIED (batch rows)', createOnly: true },
      { flag: 'example-count', path: 'exampleCount', type: 'int64', description: 'rows, when known ahead', placeholder: '<count>' },
    ],
    columns: [id, { header: 'DISPLAY NAME', path: 'displayName' }, { header: 'FORMAT', path: 'format' }, state, { header: 'EXAMPLES', path: 'exampleCount' }, created],
  },
  {
    command: 'deployments',
    singular: 'deployment',
    collection: 'deployments',
    listKey: 'deployments',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'query', idParam: 'deploymentId' },
    fields: [
      { flag: 'base-model', path: 'baseModel', type: 'string', description: 'model to serve (accounts/…/models/…)', createOnly: true },
      displayName,
      description,
      ...accelerator,
      { flag: 'min-replicas', path: 'minReplicaCount', type: 'int', description: 'lowest replica count', placeholder: '<count>' },
      { flag: 'max-replicas', path: 'maxReplicaCount', type: 'int', description: 'highest replica count', placeholder: '<count>' },
      { flag: 'deployment-shape', path: 'deploymentShape', type: 'string', description: 'shape to deploy with' },
      { flag: 'region', path: 'region', type: 'string', description: 'region, e.g. US_OHIO_1' },
    ],
    columns: [
      id, { header: 'BASE MODEL', path: 'baseModel', short: true }, { header: 'ACCELERATOR', path: 'acceleratorType' }, state,
      { header: 'REPLICAS', path: 'replicaCount' }, { header: 'MIN', path: 'minReplicaCount' }, { header: 'MAX', path: 'maxReplicaCount' },
    ],
    watch: 'deployment',
    listFlags: [{ flag: 'show-deleted', param: 'showDeleted', type: 'bool', description: 'include soft-deleted deployments' }],
    deleteFlags: [
      { flag: 'hard', param: 'hard', type: 'bool', description: 'delete now instead of soft-deleting' },
      { flag: 'ignore-checks', param: 'ignoreChecks', type: 'bool', description: 'delete even while it serves traffic' },
    ],
    createFlags: [
      { flag: 'validate-only', param: 'validateOnly', type: 'bool', description: 'check the request without creating' },
      { flag: 'skip-shape-validation', param: 'skipShapeValidation', type: 'bool', description: 'do not check against deployment shapes' },
    ],
    methods: [
      {
        command: 'scale',
        verb: 'scale',
        method: 'PATCH',
        description: 'set the replica count',
        done: 'scaled',
        fields: [{ flag: 'replicas', path: 'replicaCount', type: 'int', description: 'replicas wanted', placeholder: '<count>', required: true }],
      },
      { command: 'undelete', verb: 'undelete', method: 'POST', description: 'restore a soft-deleted deployment', done: 'undeleted' },
    ],
  },
  {
    command: 'deployment-shapes',
    aliases: ['shapes'],
    singular: 'deployment shape',
    collection: 'deploymentShapes',
    listKey: 'deploymentShapes',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'query', idParam: 'deploymentShapeId' },
    fields: [
      { flag: 'base-model', path: 'baseModel', type: 'string', description: 'model the shape is for', createOnly: true },
      displayName,
      description,
      ...accelerator,
    ],
    columns: [id, { header: 'BASE MODEL', path: 'baseModel', short: true }, { header: 'ACCELERATOR', path: 'acceleratorType' }, { header: 'COUNT', path: 'acceleratorCount' }, { header: 'PRECISION', path: 'precision' }],
  },
  {
    command: 'deployed-models',
    singular: 'deployed model',
    collection: 'deployedModels',
    listKey: 'deployedModels',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'query', idParam: 'deployedModelId' },
    fields: [
      { flag: 'model', path: 'model', type: 'string', description: 'model (accounts/…/models/…)', createOnly: true },
      { flag: 'deployment', path: 'deployment', type: 'string', description: 'deployment (accounts/…/deployments/…)', createOnly: true },
      displayName,
      description,
      { flag: 'default', path: 'default', type: 'bool', description: 'the model answered by default on the deployment' },
      { flag: 'public', path: 'public', type: 'bool', description: 'visible to other accounts' },
    ],
    columns: [id, { header: 'MODEL', path: 'model', short: true }, { header: 'DEPLOYMENT', path: 'deployment', short: true }, state],
  },
  {
    command: 'users',
    singular: 'user',
    collection: 'users',
    listKey: 'users',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'query', idParam: 'userId' },
    fields: [
      { flag: 'role', path: 'role', type: 'string', description: 'admin, user, contributor or inference-user', choices: ['admin', 'user', 'contributor', 'inference-user'] },
      { flag: 'email', path: 'email', type: 'string', description: 'e-mail address' },
      displayName,
      { flag: 'service-account', path: 'serviceAccount', type: 'bool', description: 'a service account' },
    ],
    columns: [id, { header: 'ROLE', path: 'role' }, { header: 'EMAIL', path: 'email' }, state, created],
  },
  {
    command: 'api-keys',
    singular: 'API key',
    collection: 'apiKeys',
    listKey: 'apiKeys',
    parent: { flag: 'user', collection: 'users', description: 'user the key belongs to' },
    operations: ['create', 'list', 'delete'],
    create: { id: 'none', bodyKey: 'apiKey' },
    fields: [
      displayName,
      { flag: 'expire-time', path: 'expireTime', type: 'string', description: 'RFC 3339 time the key stops working' },
    ],
    columns: [{ header: 'ID', path: 'keyId' }, { header: 'DISPLAY NAME', path: 'displayName' }, { header: 'PREFIX', path: 'prefix' }, created, { header: 'EXPIRES', path: 'expireTime' }],
  },
  {
    command: 'batch',
    aliases: ['batch-jobs'],
    singular: 'batch inference job',
    collection: 'batchInferenceJobs',
    listKey: 'batchInferenceJobs',
    operations: ['create', 'get', 'list', 'delete'],
    create: jobCreate('batchInferenceJobId'),
    fields: [
      { flag: 'model', path: 'model', type: 'string', description: 'model (accounts/…/models/…)' },
      { flag: 'input-dataset', path: 'inputDatasetId', type: 'string', description: 'dataset of request rows' },
      { flag: 'output-dataset', path: 'outputDatasetId', type: 'string', description: 'dataset the results go to' },
      displayName,
      { flag: 'precision', path: 'precision', type: 'string', description: 'serving precision' },
      { flag: 'continued-from', path: 'continuedFromJobName', type: 'string', description: 'job whose unanswered rows to run' },
      { flag: 'inference-parameters', path: 'inferenceParameters', type: 'json', description: 'JSON object, e.g. {"maxTokens":64}', placeholder: '<json>' },
    ],
    columns: [id, { header: 'MODEL', path: 'model', short: true }, { header: 'INPUT', path: 'inputDatasetId', short: true }, state, progress, created],
    watch: 'job',
    methods: [{ command: 'cancel', verb: 'cancel', method: 'POST', description: 'stop a running job', done: 'cancelled' }],
  },
  {
    command: 'rft',
    aliases: ['rft-jobs'],
    singular: 'reinforcement fine-tuning job',
    collection: 'reinforcementFineTuningJobs',
    listKey: 'reinforcementFineTuningJobs',
    operations: ['create', 'get', 'list', 'delete'],
    create: jobCreate('reinforcementFineTuningJobId'),
    fields: [
      { flag: 'dataset', path: 'dataset', type: 'string', description: 'training dataset' },
      { flag: 'evaluator', path: 'evaluator', type: 'string', description: 'evaluator (accounts/…/evaluators/…)' },
      { flag: 'evaluation-dataset', path: 'evaluationDataset', type: 'string', description: 'dataset to evaluate on' },
      { flag: 'base-model', path: 'trainingConfig.baseModel', type: 'string', description: 'model to train from' },
      { flag: 'output-model', path: 'trainingConfig.outputModel', type: 'string', description: 'model the job creates' },
      displayName,
      { flag: 'training-config', path: 'trainingConfig', type: 'json', description: 'JSON object of training settings', placeholder: '<json>' },
    ],
    columns: [id, { header: 'DATASET', path: 'dataset', short: true }, { header: 'EVALUATOR', path: 'evaluator', short: true }, state, progress, created],
    watch: 'job',
    methods: [
      { command: 'cancel', verb: 'cancel', method: 'POST', description: 'stop a running job', done: 'cancelled' },
      { command: 'resume', verb: 'resume', method: 'POST', description: 'resume a failed, paused or cancelled job from its last checkpoint', done: 'resumed' },
    ],
  },
  {
    command: 'evaluators',
    singular: 'evaluator',
    collection: 'evaluators',
    listKey: 'evaluators',
    operations: ['create', 'get', 'list', 'update', 'delete'],
    create: { id: 'body', idParam: 'evaluatorId', bodyKey: 'evaluator', idRequired: true },
    fields: [
      displayName,
      description,
      { flag: 'criteria', path: 'criteria', type: 'json', description: 'JSON array of criteria (or give them in --file)', placeholder: '<json>' },
      { flag: 'requirements', path: 'requirements', type: 'string', description: 'requirements of Python criteria' },
      { flag: 'multi-metrics', path: 'multiMetrics', type: 'bool', description: 'criteria report several metrics' },
    ],
    columns: [id, { header: 'DISPLAY NAME', path: 'displayName' }, state, created],
    watch: 'build',
  },
];
