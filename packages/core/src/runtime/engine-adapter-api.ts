import { failedPrecondition, unavailable } from '../errors/index.js';
import type { EngineAdapterApi } from '../ports/accelerator-runtime.js';

/** vLLM's run-time LoRA routes (the reference engine serves the same). */
export const vllmAdapterApi: EngineAdapterApi = {
  loadPath: '/v1/load_lora_adapter',
  unloadPath: '/v1/unload_lora_adapter',
  modelsPath: '/v1/models',
  env: { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' },
};

/** SGLang's run-time LoRA routes (same bodies as vLLM's). */
export const sglangAdapterApi: EngineAdapterApi = {
  loadPath: '/load_lora_adapter',
  unloadPath: '/unload_lora_adapter',
  modelsPath: '/v1/models',
  env: {},
};

const callTimeoutMs = 120_000;

async function call(endpoint: string, path: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(`${endpoint}${path}`, { ...init, signal: AbortSignal.timeout(callTimeoutMs) });
  } catch (error) {
    throw unavailable(`the replica at ${endpoint} cannot be reached to ${what}: ${String(error)}`, { cause: error });
  }
}

async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = parsed.error?.message ?? parsed.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || `HTTP ${response.status}`;
}

/**
 * Asks an engine to load a LoRA adapter from `path` (a directory on the replica) under `name`. An adapter
 * already loaded under the name counts as loaded.
 * @throws GatewayError FAILED_PRECONDITION when the engine refuses the adapter (its message quoted);
 *   UNAVAILABLE when it cannot be reached or fails (5xx).
 */
export async function loadEngineAdapter(endpoint: string, api: EngineAdapterApi, name: string, path: string): Promise<void> {
  const response = await call(
    endpoint,
    api.loadPath,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lora_name: name, lora_path: path }) },
    `load add-on ${name}`,
  );
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const message = await errorText(response);
  if (response.status === 400 && /already been loaded/i.test(message)) return;
  if (response.status >= 500) throw unavailable(`the replica failed to load add-on ${name}: ${message}`);
  throw failedPrecondition(`the replica refused add-on ${name}: ${message}`, { reason: 'ADDON_LOAD_FAILED' });
}

/** Asks an engine to unload an adapter; one it does not know counts as unloaded. UNAVAILABLE on failure. */
export async function unloadEngineAdapter(endpoint: string, api: EngineAdapterApi, name: string): Promise<void> {
  const response = await call(
    endpoint,
    api.unloadPath,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lora_name: name }) },
    `unload add-on ${name}`,
  );
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const message = await errorText(response);
  if (response.status === 404 || /cannot be found|not found/i.test(message)) return;
  throw unavailable(`the replica failed to unload add-on ${name}: ${message}`);
}

/** The adapters an engine has loaded: the models it lists with a `parent`. UNAVAILABLE on failure. */
export async function listEngineAdapters(endpoint: string, api: EngineAdapterApi): Promise<string[]> {
  const response = await call(endpoint, api.modelsPath, { method: 'GET' }, 'list its add-ons');
  if (!response.ok) throw unavailable(`the replica failed to list its models: ${await errorText(response)}`);
  const body = (await response.json()) as { data?: { id?: unknown; parent?: unknown }[] };
  return (body.data ?? []).filter((m) => typeof m.id === 'string' && typeof m.parent === 'string').map((m) => m.id as string);
}
