import { invalidArgument } from '../errors/index.js';

/** Throws INVALID_ARGUMENT when `value` nests arrays/objects deeper than `maxDepth`. Iterative: no recursion. */
export function assertJsonDepth(value: unknown, maxDepth: number): void {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > maxDepth) {
      throw invalidArgument(`request body nests deeper than ${maxDepth} levels`, { reason: 'JSON_TOO_DEEP' });
    }
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
}
