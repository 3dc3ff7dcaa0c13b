import { invalidArgument } from '../../errors/index.js';
import type { ServingAdvisor } from '../../ports/serving-advisor.js';
import { acceleratorTypeValues } from './schema-parts.js';

export type { ServingAdvisor };

/** Without runtime plugins: no sizing, and only the specification's accelerator types. */
export const permissiveServingAdvisor: ServingAdvisor = {
  minimumAcceleratorCount: () => undefined,
  validate: (_ctx, data) => {
    const type = data.acceleratorType;
    if (typeof type === 'string' && !(acceleratorTypeValues as readonly string[]).includes(type)) {
      throw invalidArgument(`acceleratorType ${type} is not one of ${acceleratorTypeValues.slice(1).join(', ')}; install a runtime plugin that serves it`, { field: 'acceleratorType' });
    }
  },
};
