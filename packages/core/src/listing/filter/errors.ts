import { invalidArgument, type GatewayError } from '../../errors/index.js';
import type { Position } from './ast.js';

/** The one error of the filter pipeline: INVALID_ARGUMENT naming the 0-based position in the text. */
export function filterError(position: Position, message: string): GatewayError {
  return invalidArgument(`invalid filter at position ${position}: ${message}`, { reason: 'INVALID_FILTER', field: 'filter' });
}
