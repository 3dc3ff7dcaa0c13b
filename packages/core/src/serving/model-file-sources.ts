import type { RequestContext } from '../contracts/request-context.js';
import type { JsonObject } from '../contracts/json.js';
import type { ModelFileSource } from '../ports/model-files.js';

/** Finds the uploaded files of a model, for replicas to load. */
export interface ModelFileSources {
  /** The model's uploaded files as a source, or undefined when it has none (a model registered by name). */
  sourceOf(ctx: RequestContext, modelName: string, model: JsonObject): Promise<ModelFileSource | undefined>;
}

/** No model has uploaded files. */
export const noModelFileSources: ModelFileSources = { sourceOf: async () => undefined };
