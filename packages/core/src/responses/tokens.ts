import { createMultiToken } from '../kernel/token.js';
import type { ResponseToolProvider } from './tool-provider.js';

/** Gateway-run tool types for the Responses API (MCP servers): `binder.contribute(responseToolProvidersToken, provider)`. */
export const responseToolProvidersToken = createMultiToken<ResponseToolProvider>('ResponseToolProviders');
