/** Minimal structured logger (pino-compatible shape). */
export interface GatewayLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export const silentLogger: GatewayLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Writes one JSON line per entry to stderr. */
export function consoleLogger(level: 'debug' | 'info' | 'warn' | 'error' = 'info'): GatewayLogger {
  const order = ['debug', 'info', 'warn', 'error'];
  const min = order.indexOf(level);
  const write = (lvl: string) => (obj: object | string, msg?: string) => {
    if (order.indexOf(lvl) < min) return;
    const entry = typeof obj === 'string' ? { msg: obj } : { ...obj, ...(msg ? { msg } : {}) };
    process.stderr.write(`${JSON.stringify({ level: lvl, time: new Date().toISOString(), ...entry })}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
