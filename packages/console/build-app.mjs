/**
 * Builds the console (app/ → dist/app/) with Vite, unless dist/app is newer than every source file
 * (so `npm start`, which builds first, does not rebuild an unchanged console). `--force` rebuilds.
 * Run by `npm run build` at the repository root (scripts/build.mjs) and so before packing.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const stamp = join(root, 'dist', 'app', 'index.html');
const sources = [join(root, 'app'), join(root, 'vite.config.mjs'), join(root, 'package.json')];

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

if (!process.argv.includes('--force') && existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...sources.map(newest))) {
  console.log('@berth/console: dist/app is up to date');
} else {
  const { build } = await import('vite');
  await build({ configFile: join(root, 'vite.config.mjs') });
  console.log('@berth/console: built dist/app');
}
