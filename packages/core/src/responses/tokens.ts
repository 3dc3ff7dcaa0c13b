import { createMultiToken, createToken } from '../kernel/token.js';
import type { BackgroundResponses } from './background-responses.js';
import type { ResponseToolProvider } from './tool-provider.js';

/** Gateway-run tool types for the Responses API (MCP servers): `binder.contribute(responseToolProvidersToken, provider)`. */
export const responseToolProvidersToken = createMultiToken<ResponseToolProvider>('ResponseToolProviders');

/** This gateway's background responses: the queue handler core contributes and the runner the transport attaches. */
export const backgroundResponsesToken = createToken<BackgroundResponses>('BackgroundResponses');
