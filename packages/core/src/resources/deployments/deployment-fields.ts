import type { FieldDeclarations } from '../../listing/fields.js';
import { commonFields } from '../common/fields.js';
import { precisionValues, regionValues } from '../common/schema-parts.js';
import { deploymentStateValues, multiRegionValues } from './deployment-schema.js';

export const deploymentFields: FieldDeclarations = {
  ...commonFields,
  description: { path: ['description'], type: 'string' },
  state: { path: ['state'], type: 'enum', enumValues: deploymentStateValues },
  baseModel: { path: ['baseModel'], type: 'string' },
  deploymentShape: { path: ['deploymentShape'], type: 'string' },
  // A string, not an enum: runtime plugins may declare types beyond the specification's.
  acceleratorType: { path: ['acceleratorType'], type: 'string' },
  acceleratorCount: { path: ['acceleratorCount'], type: 'int' },
  precision: { path: ['precision'], type: 'enum', enumValues: precisionValues },
  minReplicaCount: { path: ['minReplicaCount'], type: 'int' },
  maxReplicaCount: { path: ['maxReplicaCount'], type: 'int' },
  replicaCount: { path: ['replicaCount'], type: 'int' },
  desiredReplicaCount: { path: ['desiredReplicaCount'], type: 'int' },
  enableAddons: { path: ['enableAddons'], type: 'bool' },
  region: { path: ['region'], type: 'enum', enumValues: regionValues },
  'placement.multiRegion': { path: ['placement', 'multiRegion'], type: 'enum', enumValues: multiRegionValues },
  'placement.region': { path: ['placement', 'region'], type: 'enum', enumValues: regionValues },
  'autoscalingPolicy.scaleUpWindow': { path: ['autoscalingPolicy', 'scaleUpWindow'], type: 'duration' },
  'autoscalingPolicy.scaleDownWindow': { path: ['autoscalingPolicy', 'scaleDownWindow'], type: 'duration' },
  'autoscalingPolicy.scaleToZeroWindow': { path: ['autoscalingPolicy', 'scaleToZeroWindow'], type: 'duration' },
  expireTime: { path: ['expireTime'], type: 'timestamp' },
  deleteTime: { path: ['deleteTime'], type: 'timestamp' },
  purgeTime: { path: ['purgeTime'], type: 'timestamp' },
};
