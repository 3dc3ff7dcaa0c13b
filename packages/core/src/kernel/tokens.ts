import { createToken } from './token.js';
import type { Storage } from '../ports/storage.js';
import type { Authenticator, PrincipalChangeListener } from '../ports/authenticator.js';
import type { Clock } from '../ports/clock.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { GatewayLogger } from '../ports/logger.js';
import type { GatewayConfig } from './config.js';

/** Every port and service of core, in one place. */
export const storageToken = createToken<Storage>('Storage');
export const authenticatorToken = createToken<Authenticator>('Authenticator');
export const clockToken = createToken<Clock>('Clock');
export const idGeneratorToken = createToken<IdGenerator>('IdGenerator');
export const loggerToken = createToken<GatewayLogger>('Logger');
export const configToken = createToken<GatewayConfig>('GatewayConfig');
/** Multi-binding: who must hear of a change to a principal (identity caches). */
export const principalChangeListenersToken = createToken<readonly PrincipalChangeListener[]>('PrincipalChangeListeners');
