import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveGateway } from '@berth/plugin-transport-fastify';
import { buildGateway } from '../../templates/gateway/src/build-gateway.js';
import { selectStorage } from '../../templates/gateway/src/select-storage.js';
import { readSettings } from '../../templates/gateway/src/gateway-config.js';

/** A gateway assembled as `npm start` assembles it (key `dev-secret-key`), on a free port, and a scratch directory. */
export interface ReadmeGateway {
  readonly url: string;
  readonly workdir: string;
  close(): Promise<void>;
}

export async function startReadmeGateway(label: string): Promise<ReadmeGateway> {
  const settings = readSettings({ BERTH_API_KEY: 'dev-secret-key', PORT: '0', LOG_LEVEL: 'error' });
  const workdir = await mkdtemp(join(tmpdir(), `berth-readme-${label}-`));
  // Files on disk go under the scratch directory, not ./.berth-data: every run starts from an empty store.
  const gateway = buildGateway(settings, selectStorage(settings, { ...process.env, BERTH_DATA_DIR: join(workdir, '.berth-data') }));
  await gateway.start();
  const server = await serveGateway(gateway, { host: settings.host, port: settings.port });
  return {
    url: server.url,
    workdir,
    close: async () => {
      await server.close();
      await gateway.stop();
      await rm(workdir, { recursive: true, force: true });
    },
  };
}

/** The shell blocks of one README section (from its `## ` heading to the next), joined in order. */
export async function readmeSectionShell(heading: string): Promise<string> {
  const readme = await readFile(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const start = readme.indexOf(`## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
}

/**
 * The answers a README shell block shows: `# {…}` and `# data: …` comments, each with its `#  ` continuation
 * lines joined to it.
 */
export function shownOutputs(block: string): string[] {
  const outputs: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('# {') || line.startsWith('# data: ')) outputs.push(line.slice(2));
    else if (line.startsWith('#  ') && outputs.length > 0) outputs[outputs.length - 1] += line.slice(3);
  }
  return outputs;
}

/** A shown answer as a pattern: literal text, `…` for anything on the line, any temporary deployment id. */
export function patternOf(shown: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/batch-[0-9a-f]{12}/g, 'batch-[0-9a-f]{12}');
  return new RegExp(shown.split(/\s*…\s*/).map(literal).join('[^\\n]*'));
}

/** Fails unless every shown answer is found in `stdout`, in order (the message names the first one missing). */
export function expectShownInOrder(shown: readonly string[], stdout: string): void {
  let from = 0;
  for (const output of shown) {
    const match = patternOf(output).exec(stdout.slice(from));
    if (!match) throw new Error(`README output not found (in order):\n${output}\n--- got ---\n${stdout.slice(from)}`);
    from += match.index + match[0].length;
  }
}
