import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding the built console (`index.html` and `assets/`), produced by `build-app.mjs` (Vite)
 * at build and package time. The same path from the sources (`src/`) and the built module (`dist/`):
 * both are one level below the package root.
 */
export const consoleAssetsDirectory: string = fileURLToPath(new URL('../dist/app/', import.meta.url));

/** Whether the console has been built (a source checkout before `npm run build` has no assets). */
export function consoleIsBuilt(directory: string = consoleAssetsDirectory): boolean {
  return existsSync(`${directory}index.html`);
}
