/** Where the CLI reads and writes: the process's streams in `bin.ts`, buffers in tests. */
export interface OutputStream {
  write(text: string): unknown;
  /** True when the stream is a terminal: progress redraws one line instead of printing one per update. */
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /** Standard input, read by `berth configure` when it asks questions (only when it is a terminal). */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** The home directory the default profile file lives under. */
  homeDir: string;
}

/** A writable text sink that keeps what was written (tests, and `--output` buffering). */
export function memoryStream(options: { isTTY?: boolean; columns?: number } = {}): OutputStream & { text(): string } {
  const chunks: string[] = [];
  return {
    write: (text: string) => chunks.push(text),
    text: () => chunks.join(''),
    ...(options.isTTY === undefined ? {} : { isTTY: options.isTTY }),
    ...(options.columns === undefined ? {} : { columns: options.columns }),
  };
}
