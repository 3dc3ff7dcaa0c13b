/** What every command's action gets: the streams, the chosen output format, and a client for the settings. */
import type { Command } from 'commander';
import { GatewayClient } from './client.js';
import { configPath, resolveSettings, type SettingFlags } from './config.js';
import type { CliIo, OutputStream } from './io.js';
import { detailTable, parseOutputFormat, printData, type OutputFormat } from './output.js';

export interface GlobalOptions extends SettingFlags {
  output?: string;
}

export class CommandContext {
  readonly format: OutputFormat;

  constructor(
    readonly io: CliIo,
    readonly globals: GlobalOptions,
  ) {
    this.format = parseOutputFormat(globals.output ?? 'table');
  }

  static of(io: CliIo, command: Command): CommandContext {
    return new CommandContext(io, command.optsWithGlobals<GlobalOptions>());
  }

  get configPath(): string {
    return configPath(this.io.env, this.io.homeDir);
  }

  async client(): Promise<GatewayClient> {
    return new GatewayClient(await resolveSettings(this.globals, this.io.env, this.configPath));
  }

  /** Progress goes to standard output in table mode and to standard error under -o json / yaml (stdout stays data). */
  get progressStream(): OutputStream {
    return this.format === 'table' ? this.io.stdout : this.io.stderr;
  }

  /** A resource (or any answer) as FIELD / VALUE rows, JSON or YAML. */
  printResource(value: unknown): void {
    if (this.format === 'table') this.io.stdout.write(detailTable(value));
    else printData(this.io.stdout, this.format, value);
  }

  /** A message for people in table mode; under -o json / yaml, `data` is printed instead. */
  printMessage(message: string, data: unknown): void {
    if (this.format === 'table') this.io.stdout.write(`${message}\n`);
    else printData(this.io.stdout, this.format, data);
  }
}
