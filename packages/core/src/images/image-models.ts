import { defaultImageModelIds, type ImageModelIds } from '../kernel/config.js';

/** The roles of the image models, as `$BERTH_IMAGE_MODEL_IDS` names them. */
export type ImageModelRole = 'text_to_image' | 'kontext_pro' | 'kontext_max';

export const imageModelRoles: readonly ImageModelRole[] = ['text_to_image', 'kontext_pro', 'kontext_max'];

const fieldOf: Readonly<Record<ImageModelRole, keyof ImageModelIds>> = {
  text_to_image: 'textToImage',
  kontext_pro: 'kontextPro',
  kontext_max: 'kontextMax',
};

/** Model ids of the reference provider: lowercase letters, digits, `.`, `_`, `-`; 1–100 characters. */
const MODEL_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;

/** The id a role is published under. */
export function imageModelId(ids: ImageModelIds, role: ImageModelRole): string {
  return ids[fieldOf[role]];
}

/** The role of a model id, or undefined when no image model has that id. */
export function imageModelRoleOf(ids: ImageModelIds, model: string): ImageModelRole | undefined {
  return imageModelRoles.find((role) => imageModelId(ids, role) === model);
}

/**
 * Reads `$BERTH_IMAGE_MODEL_IDS`: comma-separated `role=id` pairs (`text_to_image=…,kontext_pro=…`);
 * roles not named keep their default id. Unset or blank gives the defaults.
 * @throws Error naming the variable for an unknown role, a repeated role, a malformed id or two roles
 *   with one id.
 */
export function parseImageModelIds(text: string | undefined, variable = 'BERTH_IMAGE_MODEL_IDS'): ImageModelIds {
  const ids: Record<keyof ImageModelIds, string> = { ...defaultImageModelIds };
  const seen = new Set<string>();
  for (const entry of (text ?? '').split(',')) {
    const pair = entry.trim();
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const role = (at < 0 ? pair : pair.slice(0, at)).trim();
    const id = at < 0 ? '' : pair.slice(at + 1).trim();
    if (!(imageModelRoles as readonly string[]).includes(role)) {
      throw new Error(`${variable}: "${role}" is not one of ${imageModelRoles.join(', ')}`);
    }
    if (seen.has(role)) throw new Error(`${variable}: role ${role} is given twice`);
    if (!MODEL_ID.test(id)) throw new Error(`${variable}: id "${id}" of ${role} must be 1-100 lowercase letters, digits, '.', '_' or '-'`);
    seen.add(role);
    ids[fieldOf[role as ImageModelRole]] = id;
  }
  const values = Object.values(ids);
  if (new Set(values).size !== values.length) throw new Error(`${variable}: two image models cannot share one id`);
  return ids;
}
