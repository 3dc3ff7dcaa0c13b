/**
 * The Responses API's domain: request rules and defaults, conversation items, the turn loop over chat
 * completions with pluggable gateway-run tools, the response object, and stored responses.
 * Exported: what a transport, a host calling in process, a chat client and a tool provider use.
 */
export * from './response-types.js';
export { newResponsesId, type IdPrefix } from './response-ids.js';
export type { ResponseRequest } from './response-request.js';
export type { FittedContext } from './context-window.js';
export type { ChatCompletionCall, ChatCompletionOutcome, ChatModelClient, ChatStreamOutcome, UpstreamError } from './model-client.js';
export type { ChatFunction, ResponseToolProvider, ToolEventStream, ToolSession } from './tool-provider.js';
export { mcpFunctionName } from './mcp-names.js';
export type { ResponseListParams } from './response-list.js';
export { ResponsesService, defaultCancelPollMs, responseDeletedBody, type PreparedResponse, type ResponsesServiceDependencies } from './responses-service.js';
export type { ResponseEventSink } from './response-events.js';
export { backgroundResponsesToken, responseToolProvidersToken } from './tokens.js';
export {
  BackgroundResponses, backgroundResponsesQueue, type BackgroundResponseRunner, type BackgroundResponsesOptions,
} from './background-responses.js';
