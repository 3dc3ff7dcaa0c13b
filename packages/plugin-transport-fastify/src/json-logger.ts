import pino, { type DestinationStream } from 'pino';
import { activeTraceIds, type GatewayLogger } from '@berth/core';

/**
 * Fields whose values never reach a log line: credentials of every kind the gateway handles (API keys,
 * bearer tokens, `Authorization` headers, webhook signing secrets, a fine-tuning tracker's `apiKey`,
 * passwords), at the top level and one or two levels down.
 */
export const redactedLogPaths: readonly string[] = [
  'authorization', 'headers.authorization', 'req.headers.authorization', '*.authorization', '*.headers.authorization',
  'apiKey', '*.apiKey', '*.*.apiKey', 'bootstrapApiKey', '*.bootstrapApiKey',
  'secret', '*.secret', 'signingSecret', '*.signingSecret', '*.*.signingSecret', 'webhookSecret', '*.webhookSecret',
  'bearerToken', '*.bearerToken', 'token', '*.token', 'password', '*.password', 'trackerConfig.apiKey', '*.trackerConfig.apiKey',
];

const bearer = /\b(Bearer|Basic)\s+[^\s"',;]+/gi;
/** A credential that made it into free text (an error message quoting a header) is cut out. */
const scrub = (value: unknown): unknown => (typeof value === 'string' ? value.replace(bearer, '$1 [redacted]') : value);

export interface JsonLoggerOptions {
  /** Default `info`. */
  readonly level?: 'debug' | 'info' | 'warn' | 'error';
  /** Where lines go: default stderr (fd 2); a file path, or any pino destination stream. */
  readonly destination?: string | DestinationStream;
}

/**
 * The gateway's logger as pino JSON lines: ISO time, level name, the caller's fields (request ids are
 * passed as `requestId`), the active trace's `traceId` and `spanId`, and credentials redacted (see
 * {@link redactedLogPaths}; `Bearer …` in any message or string field becomes `Bearer [redacted]`).
 */
export function jsonLogger(options: JsonLoggerOptions = {}): GatewayLogger {
  const destination = typeof options.destination === 'string'
    ? pino.destination({ dest: options.destination, sync: true, mkdir: true })
    : (options.destination ?? pino.destination({ dest: 2, sync: false }));
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (object) => {
          for (const [key, value] of Object.entries(object)) if (typeof value === 'string') object[key] = scrub(value);
          return object;
        },
      },
      redact: { paths: [...redactedLogPaths], censor: '[redacted]' },
      mixin: () => activeTraceIds() ?? {},
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(scrub) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
