import type { RequestContext } from '../kernel/index.js';
import type { JsonValue, Outbox, OutboxEvent } from '../ports/index.js';
import { clone, iso } from './records.js';
import type { MemoryState } from './state.js';
import type { WriteScope } from './transactions.js';

/** The outbox in memory: events in sequence order, one position per consumer. */
export class MemoryOutbox implements Outbox {
  constructor(
    private readonly state: MemoryState,
    private readonly scope: WriteScope,
  ) {}

  publish(_ctx: RequestContext, topic: string, payload: JsonValue): Promise<void> {
    return this.scope.write((undo) => {
      const event: OutboxEvent = { sequence: ++this.state.sequence, topic, payload: clone(payload), createTime: iso(this.state.now()) };
      this.state.events.push(event);
      undo?.push(() => {
        const index = this.state.events.indexOf(event);
        if (index >= 0) this.state.events.splice(index, 1);
      });
    });
  }

  async poll(_ctx: RequestContext, consumer: string, limit: number): Promise<OutboxEvent[]> {
    const position = this.state.positions.get(consumer) ?? 0;
    const out: OutboxEvent[] = [];
    for (const event of this.state.events) {
      if (out.length >= limit) break;
      if (event.sequence > position) out.push({ ...event, payload: clone(event.payload) });
    }
    return out;
  }

  prune(_ctx: RequestContext, createdBefore: Date): Promise<number> {
    return this.scope.write((undo) => {
      const cutoff = createdBefore.getTime();
      const removed = this.state.events.filter((event) => Date.parse(event.createTime) < cutoff);
      if (removed.length === 0) return 0;
      const kept = this.state.events.filter((event) => Date.parse(event.createTime) >= cutoff);
      this.state.events.splice(0, this.state.events.length, ...kept);
      undo?.push(() => {
        this.state.events.push(...removed);
        this.state.events.sort((a, b) => a.sequence - b.sequence);
      });
      return removed.length;
    });
  }

  removeConsumer(_ctx: RequestContext, consumer: string): Promise<void> {
    return this.scope.write((undo) => {
      const { positions } = this.state;
      const previous = positions.get(consumer);
      if (previous === undefined) return;
      positions.delete(consumer);
      undo?.push(() => positions.set(consumer, previous));
    });
  }

  ack(_ctx: RequestContext, consumer: string, sequence: number): Promise<void> {
    return this.scope.write((undo) => {
      const { positions } = this.state;
      const previous = positions.get(consumer);
      if (previous !== undefined && previous >= sequence) return;
      positions.set(consumer, sequence);
      undo?.push(() => (previous === undefined ? positions.delete(consumer) : positions.set(consumer, previous)));
    });
  }
}
