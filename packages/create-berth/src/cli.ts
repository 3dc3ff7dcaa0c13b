import { readFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { packageNameOf } from './manifest.js';
import { scaffold, ScaffoldError } from './scaffold.js';
import { packageDir, type TemplateSource } from './template-source.js';
import { isTemplateId, templateIds, templates, type TemplateId } from './templates.js';

export interface CliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Prompt for missing answers (default: when stdin is a terminal and --yes is not given). */
  readonly interactive?: boolean;
  readonly cwd?: string;
  readonly source?: TemplateSource;
}

interface Flags {
  template?: TemplateId;
  name?: string;
  force?: boolean;
  yes?: boolean;
}

/** This package's version, from its package.json. */
export const version = (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * `create-berth [directory] [--template <id>] [--name <name>] [--force] [--yes]`: asks for what the flags
 * do not give (directory, template, name) when interactive, else takes the defaults (`my-berth-gateway`,
 * `gateway`, the directory's name); refuses a non-empty directory unless `--force`. Returns the exit code.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const program = new Command('create-berth')
    .description('Scaffold a Berth project: a gateway, a production gateway on PostgreSQL, a runtime plugin, or Berth embedded in a Fastify app.')
    .version(version)
    .argument('[directory]', 'where to create the project (must be empty unless --force)')
    .addOption(new Option('-t, --template <template>', 'project template').choices(templateIds).argParser(templateOf))
    .option('-n, --name <name>', 'package name of the project (default: the directory name)')
    .option('-f, --force', 'write into a directory that is not empty')
    .option('-y, --yes', 'do not ask: take the defaults for what the flags do not give')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    throw error;
  }
  const flags = program.opts<Flags>();
  const interactive = !flags.yes && (io.interactive ?? io.stdin.isTTY === true);
  const cwd = io.cwd ?? process.cwd();
  try {
    const answers = interactive ? await ask(io, program.args[0], flags) : { directory: program.args[0] ?? 'my-berth-gateway', template: flags.template ?? 'gateway', name: flags.name };
    const result = scaffold({
      directory: resolve(cwd, answers.directory),
      template: answers.template,
      ...(answers.name ? { name: answers.name } : {}),
      ...(flags.force ? { force: true } : {}),
      ...(io.source ? { source: io.source } : {}),
    });
    const where = relative(cwd, result.directory) || '.';
    const info = templates[answers.template];
    io.stdout.write(`\nCreated ${result.name} (${answers.template}) in ${where}: ${result.files.length} files.\n\nNext:\n  cd ${where}\n`);
    if (info.starts) io.stdout.write('  npm install && npm start\n');
    io.stdout.write('  npm install && npm test\n');
    return 0;
  } catch (error) {
    if (error instanceof ScaffoldError) {
      io.stderr.write(`create-berth: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function templateOf(value: string): TemplateId {
  if (!isTemplateId(value)) throw new InvalidArgumentError(`choose one of ${templateIds.join(', ')}`);
  return value;
}

/** Asks for each answer the flags did not give, on the terminal (node:readline). */
async function ask(io: CliIo, directoryArg: string | undefined, flags: Flags): Promise<{ directory: string; template: TemplateId; name: string | undefined }> {
  // Lines from the async iterator are buffered, so answers piped in at once are not lost between questions.
  const rl = createInterface({ input: io.stdin, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const question = async (text: string): Promise<string> => {
    io.stdout.write(text);
    const line = await lines.next();
    return line.done ? '' : String(line.value);
  };
  try {
    const directory = directoryArg ?? ((await question('Project directory (my-berth-gateway): ')).trim() || 'my-berth-gateway');
    let template = flags.template;
    while (template === undefined) {
      io.stdout.write('Template:\n');
      templateIds.forEach((id, index) => io.stdout.write(`  ${index + 1}) ${templates[id].title} [${id}]\n`));
      const answer = (await question('Choose 1-4 (1): ')).trim() || '1';
      const picked = isTemplateId(answer) ? answer : templateIds[Number(answer) - 1];
      if (picked === undefined) io.stdout.write(`"${answer}" is not one of the choices.\n`);
      template = picked;
    }
    const fallback = packageNameOf(basename(resolve(directory)));
    const name = flags.name ?? ((await question(`Package name (${fallback}): `)).trim() || undefined);
    return { directory, template, name };
  } finally {
    rl.close();
  }
}
