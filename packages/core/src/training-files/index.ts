export { TrainingFiles, type TrainingFilesOptions } from './training-files.js';
export { trainingFileRoutes } from './training-file-api.js';
