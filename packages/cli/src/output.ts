/** What commands print: aligned tables for people, JSON or YAML for scripts. */
import { stringify as toYaml } from 'yaml';
import { UsageError } from './errors.js';
import type { OutputStream } from './io.js';
import type { Column } from './resource-spec.js';
import { getPath, isObject, shortName } from './values.js';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function parseOutputFormat(text: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(text)) return text as OutputFormat;
  throw new UsageError(`--output must be one of ${OUTPUT_FORMATS.join(', ')}, got "${text}"`);
}

/** One cell's text: strings as they are, numbers and booleans printed, objects as compact JSON. */
export function cellText(value: unknown, short = false): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return short ? shortName(value) : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Rows aligned in columns two spaces apart; the last column is not padded. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(headers), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

export function resourceTable(columns: readonly Column[], items: readonly unknown[]): string {
  return renderTable(
    columns.map((c) => c.header),
    items.map((item) => columns.map((c) => cellText(getPath(item, c.path), c.short))),
  );
}

/** One resource as FIELD / VALUE rows (top-level fields in the gateway's order). */
export function detailTable(value: unknown): string {
  if (!isObject(value)) return `${cellText(value)}\n`;
  return renderTable(['FIELD', 'VALUE'], Object.entries(value).map(([key, v]) => [key, cellText(v)]));
}

export function printData(stream: OutputStream, format: Exclude<OutputFormat, 'table'>, value: unknown): void {
  stream.write(format === 'json' ? `${JSON.stringify(value, null, 2)}\n` : toYaml(value));
}
