/**
 * The tokens of the gateway's ports and extension points: what `createGateway` binds (settings, clock,
 * ids, logger), what plugins provide (storage, authentication, accelerator runtimes) and the multi-bindings
 * every plugin may contribute to. Their types come from ports and the kernel only, so every layer may
 * name them. Core's own services have their tokens in `services/tokens.ts`.
 */
import { createMultiToken, createToken } from './token.js';
import type { LifecycleHook } from './plugin.js';
import type { GatewayConfig } from './config.js';
import type { Storage } from '../ports/storage.js';
import type { Authenticator, PrincipalChangeListener } from '../ports/authenticator.js';
import type { ApiKeyManager } from '../ports/api-keys.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';
import type { ServingDirectory } from '../ports/serving-directory.js';
import type { ServingAdvisor } from '../ports/serving-advisor.js';
import type { EgressHttp } from '../ports/egress-http.js';
import type { WebhookOutbox } from '../ports/webhook-outbox.js';
import type { Trainer } from '../ports/trainer.js';
import type { ImageEngine, SafetyChecker } from '../ports/image-engine.js';
import type { EvaluatorRunner } from '../ports/evaluator-runner.js';
import type { MetricsEndpoint, Telemetry, TelemetryObserver } from '../ports/telemetry.js';

// Gateway settings and ports.
export const configToken = createToken<GatewayConfig>('GatewayConfig');
export const loggerToken = createToken<GatewayLogger>('Logger');
export const clockToken = createToken<Clock>('Clock');
export const idGeneratorToken = createToken<IdGenerator>('IdGenerator');
export const storageToken = createToken<Storage>('Storage', { providedBy: 'a storage plugin such as memoryStorage() or postgresStorage()' });
export const authenticatorToken = createToken<Authenticator>('Authenticator', { providedBy: 'an auth plugin such as apiKeyAuth()' });
export const apiKeyManagerToken = createToken<ApiKeyManager>('ApiKeyManager', { providedBy: 'an auth plugin such as apiKeyAuth()' });
/** Inference routing's view of the serving layer (bound by core). */
export const servingDirectoryToken = createToken<ServingDirectory>('ServingDirectory', { providedBy: 'core' });
/** Sizing and hardware checks of deployments and shapes (bound by core from the runtimes). */
export const servingAdvisorToken = createToken<ServingAdvisor>('ServingAdvisor', { providedBy: 'core' });
/** The guarded client for URLs users supply (bound by core from the gateway's settings; a plugin may override it). */
export const egressHttpToken = createToken<EgressHttp>('EgressHttp', { providedBy: 'core' });
/** Where features record webhooks in their own storage transaction (bound by `webhooks()` from `@berth/plugin-webhooks`). */
export const webhookOutboxToken = createToken<WebhookOutbox>('WebhookOutbox', { providedBy: 'webhooks() from @berth/plugin-webhooks' });
/** Decides moderated image requests and outputs (core binds the reference checker; a plugin may override it). */
/** Every observer of the gateway's events (a metrics plugin contributes one); none by default. */
export const observersToken = createMultiToken<TelemetryObserver>('Observers');
/** The fan-out of every observer, what the gateway's parts call (bound by core). */
export const telemetryToken = createToken<Telemetry>('Telemetry', { providedBy: 'core' });
/** Metrics for the transport to serve (bound by a metrics plugin such as `metrics()` from `@berth/plugin-metrics`). */
export const metricsEndpointToken = createToken<MetricsEndpoint>('MetricsEndpoint', { providedBy: 'metrics() from @berth/plugin-metrics' });
export const safetyCheckerToken = createToken<SafetyChecker>('SafetyChecker', { providedBy: 'core' });

// Multi-bindings.
/** Start/stop work that needs every plugin started (bootstrap, the reconciler); run after the plugins, stopped before them. */
export const lifecycleHooksToken = createMultiToken<LifecycleHook>('LifecycleHooks');
/** Every runtime plugin contributes its {@link AcceleratorRuntime}. */
export const acceleratorRuntimesToken = createMultiToken<AcceleratorRuntime>('AcceleratorRuntimes');
/** Runtime plugins contribute the {@link ImageEngine} they serve; the images service uses the first. */
export const imageEnginesToken = createMultiToken<ImageEngine>('ImageEngines');
/** Who must hear of a change to a principal (identity caches). */
export const principalChangeListenersToken = createMultiToken<PrincipalChangeListener>('PrincipalChangeListeners');
/** Runs evaluators (reward functions): core binds the sandbox runner; a plugin may override it. */
export const evaluatorRunnerToken = createToken<EvaluatorRunner>('EvaluatorRunner', { providedBy: 'core' });
/**
 * Runs reinforcement fine-tuning steps: core binds the reference trainer; a runtime plugin may override it
 * with its accelerator trainer (a trainer container run as a Kubernetes Job).
 */
export const trainerToken = createToken<Trainer>('Trainer', { providedBy: 'core (the reference trainer) or a runtime plugin' });
