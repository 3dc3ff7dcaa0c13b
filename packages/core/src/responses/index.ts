/**
 * The Responses API's domain: request rules and defaults, conversation items, the turn loop over chat
 * completions with pluggable gateway-run tools, the response object, and stored responses.
 */
export * from './response-types.js';
export { newResponsesId, isResponseId, type IdPrefix } from './response-ids.js';
export { parseResponseRequest, metadataLimits, type ResponseRequest } from './response-request.js';
export { parseInput, hasImageInput, checkToolOutputs } from './response-input.js';
export { parseTools, parseToolChoice, maxTools } from './response-tools.js';
export * from './chat-translation.js';
export { fitContext, dropOldest, estimatePromptTokens, contextTooLong, type FittedContext } from './context-window.js';
export * from './model-client.js';
export * from './tool-provider.js';
export { TurnLoop, maxTurns, zeroUsage, isContextLengthError, type TurnLoopInput, type TurnLoopResult } from './turn-loop.js';
export { buildResponseObject, responseUsage, type ResponseOutcome } from './response-object.js';
export { ResponseStore, responseNotFound, responsesCollection, type StoredResponse, type StoredResponsePage } from './response-store.js';
export { parseResponseListParams, pageInputItems, responseListBody, defaultListLimit, maxListLimit, type ResponseListOptions, type ResponseListParams } from './response-list.js';
export { readModelFacts, type ModelFacts } from './model-facts.js';
export { ResponsesService, responseDeletedBody, type PreparedResponse, type ResponsesServiceDependencies } from './responses-service.js';
export { ResponseEventWriter, type ResponseEventSink } from './response-events.js';
export { ChatStreamTurn } from './chat-stream-turn.js';
export { responseToolProvidersToken } from './tokens.js';
