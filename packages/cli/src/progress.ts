/**
 * Progress for long work. On a terminal one line is redrawn in place (`\r`, erase line) with a bar;
 * elsewhere (pipes, files, CI logs) a plain line is printed per update, so logs stay readable.
 */
import type { OutputStream } from './io.js';

const BAR_WIDTH = 30;

export interface ProgressOptions {
  label: string;
  /** Off a terminal, print a line only when the percent crossed another multiple of this (0: every change). */
  plainStep?: number;
}

export function bar(fraction: number, width = BAR_WIDTH): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  const full = Math.round(clamped * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}]`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export class Progress {
  private lastLine: string | undefined;
  private lastStep = -1;
  private open = false;

  constructor(
    private readonly stream: OutputStream,
    private readonly options: ProgressOptions,
  ) {}

  get tty(): boolean {
    return this.stream.isTTY === true;
  }

  /** `fraction` in [0, 1] draws a bar and percent; undefined shows only `detail` (state without a known total). */
  update(fraction: number | undefined, detail: string): void {
    const percent = fraction === undefined ? undefined : Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
    const parts = [this.options.label];
    if (fraction !== undefined) parts.push(bar(fraction), `${String(percent).padStart(3)}%`);
    if (detail !== '') parts.push(detail);
    const line = parts.join(' ');
    if (line === this.lastLine) return;
    this.lastLine = line;
    if (this.tty) {
      this.stream.write(`\r\x1b[2K${line}`);
      this.open = true;
      return;
    }
    const step = this.options.plainStep ?? 0;
    if (step > 0 && percent !== undefined) {
      const reached = Math.floor(percent / step);
      if (reached === this.lastStep) return;
      this.lastStep = reached;
    }
    this.stream.write(`${line}\n`);
  }

  /** Ends the redrawn line (terminal) so what follows starts on a line of its own. */
  finish(): void {
    if (this.open) this.stream.write('\n');
    this.open = false;
  }
}
