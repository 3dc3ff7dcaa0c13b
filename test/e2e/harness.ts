import { createGateway, type Gateway, type GatewayConfig, type GatewayPlugin } from '@berth/core';
import { memoryStorage } from '@berth/plugin-storage-memory';
import { apiKeyAuth } from '@berth/plugin-auth-api-keys';
import { serveGateway, type RunningServer, type ServeOptions } from '@berth/plugin-transport-fastify';
import { e2eLogger, rememberSecret, rememberSecretsIn } from './log-capture.js';

export const adminKey = 'test-admin-key-0123456789';
export const account = 'acme';

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Harness {
  gateway: Gateway;
  server: RunningServer;
  url: string;
  call<T = Record<string, unknown>>(method: string, path: string, options?: { body?: unknown; key?: string | null; raw?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** A real gateway on a loopback port: memory storage, API keys, Fastify, bootstrap admin key. */
export async function startHarness(options: { plugins?: GatewayPlugin[]; serve?: ServeOptions; config?: Partial<GatewayConfig> } = {}): Promise<Harness> {
  const gateway = createGateway({
    plugins: options.plugins ?? [memoryStorage(), apiKeyAuth({ cacheTtlMs: 0 })],
    config: { ...options.config, bootstrapAccountId: account, bootstrapApiKey: adminKey },
    logger: e2eLogger(),
  });
  rememberSecret(adminKey);
  await gateway.start();
  const server = await serveGateway(gateway, options.serve);
  const call: Harness['call'] = async (method, path, callOptions = {}) => {
    const headers: Record<string, string> = { ...callOptions.headers };
    const key = callOptions.key === undefined ? adminKey : callOptions.key;
    if (key !== null) {
      headers.authorization = `Bearer ${key}`;
      rememberSecret(key);
    }
    rememberSecretsIn(callOptions.body);
    let body: string | undefined;
    if (callOptions.raw !== undefined) body = callOptions.raw;
    else if (callOptions.body !== undefined) body = JSON.stringify(callOptions.body);
    if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    rememberSecretsIn(parsed, path.includes('/apiKeys'));
    return { status: response.status, body: parsed as never, headers: response.headers };
  };
  return {
    gateway,
    server,
    url: server.url,
    call,
    close: async () => {
      await server.close();
      await gateway.stop();
    },
  };
}

export const baseModelBody = (overrides: Record<string, unknown> = {}) => ({
  kind: 'HUB_BASE_MODEL',
  displayName: 'Llama 3 8B',
  baseModelDetails: { parameterCount: '8000000000', checkpointFormat: 'HUB', hubFiles: ['model.safetensors'], modelType: 'llama' },
  contextLength: 8192,
  ...overrides,
});

/** Creates a user with a role and returns an API key for it. */
export async function userWithKey(h: Harness, userId: string, role: string, accountId = account): Promise<string> {
  const created = await h.call('POST', `/v1/accounts/${accountId}/users?userId=${userId}`, { body: { role, email: `${userId}@example.com` } });
  if (created.status !== 200) throw new Error(`user create failed: ${JSON.stringify(created.body)}`);
  const key = await h.call<{ key: string }>('POST', `/v1/accounts/${accountId}/users/${userId}/apiKeys`, { body: { apiKey: { displayName: 'k' } } });
  if (key.status !== 200) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return key.body.key;
}

/**
 * Paths in `value` that `schema` does not declare (objects with `properties` and no open
 * `additionalProperties`; arrays through `items`). Answers are serialized with JSON.stringify, which sends
 * whatever a service returns, so tests check that nothing internal reaches a client.
 */
export function undeclaredFields(value: unknown, schema: unknown, path = ''): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  const s = schema as { properties?: Record<string, unknown>; additionalProperties?: unknown; items?: unknown };
  if (Array.isArray(value)) return value.flatMap((item, i) => undeclaredFields(item, s.items, `${path}[${i}]`));
  if (value === null || typeof value !== 'object' || s.properties === undefined) return [];
  const found: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const declared = s.properties[key];
    if (declared !== undefined) found.push(...undeclaredFields(child, declared, path ? `${path}.${key}` : key));
    else if (s.additionalProperties === undefined || s.additionalProperties === false) found.push(path ? `${path}.${key}` : key);
  }
  return found;
}
