import { afterAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { inSpan } from '@berth/core';
import { jsonLogger } from './json-logger.js';

function capture(level: 'debug' | 'info' = 'debug') {
  const lines: string[] = [];
  const logger = jsonLogger({ level, destination: { write: (line: string) => void lines.push(line) } });
  return { logger, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>), raw: () => lines.join('') };
}

const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
provider.register();
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

describe('jsonLogger', () => {
  it('writes JSON lines with the level name, ISO time and the caller\'s fields', () => {
    const { logger, entries } = capture();
    logger.info({ requestId: 'r-1', route: '/x' }, 'hello');
    expect(entries()[0]).toMatchObject({ level: 'info', requestId: 'r-1', route: '/x', msg: 'hello' });
    expect(Date.parse(String(entries()[0]!.time))).not.toBeNaN();
  });

  it('redacts credentials by field, nested, and Bearer tokens in free text', () => {
    const { logger, raw } = capture();
    const secrets = ['sk-top-level-1111', 'sk-nested-2222', 'whsec-3333', 'tracker-4444', 'hdr-5555', 'msg-6666', 'field-7777', 'bt-8888'];
    logger.warn({ apiKey: secrets[0], user: { apiKey: secrets[1] }, delivery: { signingSecret: secrets[2] }, job: { trackerConfig: { apiKey: secrets[3] } } }, 'a');
    logger.warn({ headers: { authorization: `Bearer ${secrets[4]}` } }, `failed with Authorization: Bearer ${secrets[5]}`);
    logger.error({ err: `upstream said Bearer ${secrets[6]}`, bearerToken: secrets[7] }, 'b');
    const text = raw();
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it('carries the active trace\'s ids, and none outside a span', async () => {
    const { logger, entries } = capture();
    logger.info('outside');
    let traceId = '';
    await inSpan('test', {}, async (span) => {
      traceId = span.spanContext().traceId;
      logger.info({ requestId: 'r-2' }, 'inside');
    });
    expect(entries()[0]!.traceId).toBeUndefined();
    expect(entries()[1]).toMatchObject({ requestId: 'r-2', traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('honours the level', () => {
    const { logger, entries } = capture('info');
    logger.debug('hidden');
    logger.info('shown');
    expect(entries().map((e) => e.msg)).toEqual(['shown']);
  });
});
