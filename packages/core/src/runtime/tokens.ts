import { createToken } from '../kernel/token.js';
import type { AcceleratorRuntime } from '../ports/accelerator-runtime.js';

/** Multi-binding every runtime plugin contributes its {@link AcceleratorRuntime} to. */
export const acceleratorRuntimesToken = createToken<readonly AcceleratorRuntime[]>('AcceleratorRuntimes');
