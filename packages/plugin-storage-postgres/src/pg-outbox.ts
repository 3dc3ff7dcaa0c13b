import type { JsonValue, Outbox, OutboxEvent, RequestContext } from '@berth/core';
import { iso, json, parseJson, run, text, type ExecutorSource, type Tables } from './pg-support.js';

export class PgOutbox implements Outbox {
  constructor(
    private readonly t: Tables,
    private readonly db: ExecutorSource,
  ) {}

  async publish(_ctx: RequestContext, topic: string, payload: JsonValue): Promise<void> {
    // Publishers serialise on a transaction-scoped advisory lock, so sequence numbers are handed out in
    // commit order: a consumer that acknowledged N can never later find an event below N appear.
    await run(
      this.db(),
      `WITH serialised AS (SELECT pg_advisory_xact_lock(hashtext($1)) AS locked)
       INSERT INTO ${this.t.outbox} (topic, payload) SELECT $2, $3::jsonb FROM serialised`,
      [`berth:outbox:${this.t.schema}`, topic, json(payload)],
    );
  }

  async poll(_ctx: RequestContext, consumer: string, limit: number): Promise<OutboxEvent[]> {
    const { rows } = await run(
      this.db(),
      `SELECT sequence::text AS sequence_text, topic, payload::text AS payload, create_time FROM ${this.t.outbox}
       WHERE sequence > COALESCE((SELECT position FROM ${this.t.consumers} WHERE consumer = $1), 0)
       ORDER BY sequence LIMIT $2::integer`,
      [consumer, Math.max(0, Math.floor(limit))],
    );
    return rows.map((row) => ({ sequence: Number(row.sequence_text), topic: text(row.topic), payload: parseJson(row.payload), createTime: iso(row.create_time) }));
  }

  async prune(_ctx: RequestContext, createdBefore: Date): Promise<number> {
    const { rows } = await run(
      this.db(),
      `WITH removed AS (DELETE FROM ${this.t.outbox} WHERE create_time < $1::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM removed`,
      [createdBefore.toISOString()],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async removeConsumer(_ctx: RequestContext, consumer: string): Promise<void> {
    await run(this.db(), `DELETE FROM ${this.t.consumers} WHERE consumer = $1`, [consumer]);
  }

  async ack(_ctx: RequestContext, consumer: string, sequence: number): Promise<void> {
    await run(
      this.db(),
      `INSERT INTO ${this.t.consumers} (consumer, position) VALUES ($1, $2::bigint)
       ON CONFLICT (consumer) DO UPDATE SET position = GREATEST(${this.t.consumers}.position, excluded.position)`,
      [consumer, String(Math.floor(sequence))],
    );
  }
}
