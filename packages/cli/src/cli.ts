/** The `berth` program: global options, configure, one command group per resource, upload, completion. */
import { readFileSync } from 'node:fs';
import { Argument, Command, CommanderError, Option } from 'commander';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { registerConfigure } from './configure.js';
import { CommandContext } from './context.js';
import { describeFailure, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { OUTPUT_FORMATS } from './output.js';
import { registerResource } from './resource-commands.js';
import type { ResourceSpec } from './resource-spec.js';
import { resources as defaultResources } from './resources.js';
import { collectModelFiles, uploadModelFiles } from './model-upload.js';
import { datasetIdFromFile, uploadDataset, validationSummary } from './upload.js';

function version(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

function registerUpload(datasets: Command, io: CliIo): void {
  datasets
    .command('upload')
    .description('stream a JSONL file to a dataset (created when missing) with a byte progress bar, then print the validation result')
    .argument('<file>', 'the .jsonl file')
    .option('--dataset <id>', 'dataset id (default: from the file name)')
    .option('--format <format>', 'format of a dataset created here: CHAT, COMPLETION, RL or FORMAT_UNSPECIFIED (batch rows)')
    .option('--display-name <text>', 'display name of a dataset created here')
    .action(async (file: string, options: { dataset?: string; format?: string; displayName?: string }, command: Command) => {
      const ctx = CommandContext.of(io, command);
      const result = await uploadDataset({
        client: await ctx.client(),
        file,
        datasetId: options.dataset ?? datasetIdFromFile(file),
        create: { ...(options.format ? { format: options.format } : {}), ...(options.displayName ? { displayName: options.displayName } : {}) },
        progressStream: ctx.progressStream,
      });
      if (ctx.format === 'table') io.stdout.write(validationSummary(result.dataset));
      else ctx.printResource(result.dataset);
    });
}

function registerModelUpload(models: Command, io: CliIo): void {
  models
    .command('upload')
    .description("upload a model's files (files, or folders uploaded with their relative paths) with a byte progress bar, then validate them")
    .argument('<id>', 'model id or name (the model exists: create it first)')
    .argument('<paths...>', 'files or folders')
    .option('--skip-config-validation', 'do not require or check config.json (skipHfConfigValidation)')
    .option('--config-only', 'check the config and file headers but not tensor names')
    .action(async (id: string, paths: string[], options: { skipConfigValidation?: boolean; configOnly?: boolean }, command: Command) => {
      const ctx = CommandContext.of(io, command);
      const model = await uploadModelFiles({
        client: await ctx.client(),
        modelId: id.split('/').pop()!,
        files: await collectModelFiles(paths),
        progressStream: ctx.progressStream,
        validateQuery: { skipHfConfigValidation: options.skipConfigValidation, configOnly: options.configOnly },
      });
      if (ctx.format === 'table') io.stdout.write(`model ${String(model.name)}: ${String(model.state)}\n`);
      else ctx.printResource(model);
    });
}

/** The program for `io`; `resources` is the resource list (the default one unless a test or host passes another). */
export function buildProgram(io: CliIo, resources: readonly ResourceSpec[] = defaultResources): Command {
  const program = new Command('berth')
    .description('Drive a Berth gateway\'s control plane: models, datasets, deployments, users, API keys and jobs.')
    .version(version(), '-V, --version')
    .option('--profile <name>', 'profile of the config file (env BERTH_PROFILE, default "default")')
    .option('--base-url <url>', 'gateway base URL (env BERTH_BASE_URL)')
    .option('--account <id>', 'account id (env BERTH_ACCOUNT)')
    .option('--api-key <key>', 'API key (env BERTH_API_KEY)')
    .addOption(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS))
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  registerConfigure(program, io);
  for (const spec of resources) {
    const group = registerResource(program, spec, io);
    if (spec.collection === 'datasets') registerUpload(group, io);
    if (spec.collection === 'models') registerModelUpload(group, io);
  }
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    .action((shell: Shell) => {
      io.stdout.write(completionScript(program, shell));
    });
  return program;
}

/** Runs one command line; resolves to the exit code (0 success, 1 failure, 2 usage error). */
export async function run(argv: readonly string[], io: CliIo, resources?: readonly ResourceSpec[]): Promise<number> {
  const program = buildProgram(io, resources);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with 0; every other parse error is a usage error (its message is already printed).
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
    }
    const { message, exitCode } = describeFailure(error);
    io.stderr.write(`error: ${message}\n`);
    if (error instanceof UsageError) io.stderr.write('(add --help for usage)\n');
    return exitCode;
  }
}
