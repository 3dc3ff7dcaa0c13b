import type { GatewayConfig } from '../kernel/config.js';
import { isValidId } from '../names/resource-name.js';
import { parseImageModelIds } from './image-models.js';

/** The gateway settings of image generation that hosts read from their environment. */
export type ImageSettings = Pick<GatewayConfig, 'systemAccountId' | 'imageModelIds' | 'imageBlockedTerms' | 'imageSensitiveTerms'>;

/** A comma-separated list; blank entries dropped. */
function termList(text: string | undefined): string[] {
  return (text ?? '').split(',').map((term) => term.trim()).filter((term) => term !== '');
}

/**
 * Reads the image settings from environment variables: `BERTH_SYSTEM_ACCOUNT_ID` (default `system`),
 * `BERTH_IMAGE_MODEL_IDS` (`role=id` pairs, see {@link parseImageModelIds}), `BERTH_IMAGE_BLOCKED_TERMS`
 * and `BERTH_IMAGE_SENSITIVE_TERMS` (comma-separated). Unset or empty variables give the defaults.
 * @throws Error naming the variable when one is malformed.
 */
export function readImageSettings(env: Readonly<Record<string, string | undefined>>): ImageSettings {
  const systemAccountId = env.BERTH_SYSTEM_ACCOUNT_ID || 'system';
  if (!isValidId(systemAccountId)) {
    throw new Error(`BERTH_SYSTEM_ACCOUNT_ID "${systemAccountId}" must be 1-63 lowercase letters, digits and hyphens`);
  }
  return {
    systemAccountId,
    imageModelIds: parseImageModelIds(env.BERTH_IMAGE_MODEL_IDS),
    imageBlockedTerms: termList(env.BERTH_IMAGE_BLOCKED_TERMS),
    imageSensitiveTerms: termList(env.BERTH_IMAGE_SENSITIVE_TERMS),
  };
}
