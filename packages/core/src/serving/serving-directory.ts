import { createToken } from '../kernel/token.js';
import type { ServingDirectory } from '../ports/serving-directory.js';

export const servingDirectoryToken = createToken<ServingDirectory>('ServingDirectory');
