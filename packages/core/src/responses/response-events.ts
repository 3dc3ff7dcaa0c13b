/**
 * Stream events of a response, in the OpenAI Responses event model: each has a `type` and an increasing
 * `sequence_number`; items are announced (`response.output_item.added`) before their deltas and closed
 * (`…done`) before the response's last event (`response.completed`, `response.incomplete` or
 * `response.failed`). No event carries a top-level `error` key (OpenAI clients raise on one).
 */
import type { JsonObject } from '../contracts/json.js';
import type { ContentPart, ConversationItem, ResponseObject } from './response-types.js';
import type { ToolEventStream } from './tool-provider.js';

/** Where a streamed response's events go (the HTTP transport writes them as Server-Sent Events). */
export interface ResponseEventSink {
  /** Sends one event. Never throws: a client that went away aborts the request's signal instead. */
  send(event: JsonObject): void;
  /** Resolves when the client has taken what was sent (backpressure); at once when nothing waits. */
  ready(): Promise<void>;
}

/** Numbers events and builds their payloads, counting the items announced (the client's output indexes). */
export class ResponseEventWriter implements ToolEventStream {
  private sequence = 0;
  private items = 0;

  constructor(private readonly sink: ResponseEventSink) {}

  ready(): Promise<void> {
    return this.sink.ready();
  }

  private send(type: string, payload: JsonObject): void {
    this.sink.send({ type, sequence_number: this.sequence, ...payload });
    this.sequence += 1;
  }

  /** `response.created` then `response.in_progress`, with the response as it starts (no output, no usage yet). */
  started(response: ResponseObject): void {
    const starting: JsonObject = { ...response, status: 'in_progress', output: [], usage: null, completed_at: null };
    this.send('response.created', { response: starting });
    this.send('response.in_progress', { response: starting });
  }

  /** The last event: completed, incomplete or failed, with the final response. */
  finished(response: ResponseObject): void {
    const type = response.status === 'completed' ? 'response.completed' : response.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    this.send(type, { response });
  }

  /** Announces an item; answers its output index. */
  itemAdded(item: ConversationItem): number {
    const index = this.items;
    this.items += 1;
    this.send('response.output_item.added', { output_index: index, item });
    return index;
  }

  itemDone(index: number, item: ConversationItem): void {
    this.send('response.output_item.done', { output_index: index, item });
  }

  partAdded(item: ConversationItem, index: number, contentIndex: number, part: ContentPart | JsonObject): void {
    this.send('response.content_part.added', { item_id: item.id, output_index: index, content_index: contentIndex, part });
  }

  partDone(item: ConversationItem, index: number, contentIndex: number, part: ContentPart | JsonObject): void {
    this.send('response.content_part.done', { item_id: item.id, output_index: index, content_index: contentIndex, part });
  }

  textDelta(item: ConversationItem, index: number, delta: string): void {
    this.send('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] });
  }

  textDone(item: ConversationItem, index: number, text: string): void {
    this.send('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text, logprobs: [] });
  }

  refusalDone(item: ConversationItem, index: number, refusal: string): void {
    this.send('response.refusal.done', { item_id: item.id, output_index: index, content_index: 0, refusal });
  }

  argumentsDelta(item: ConversationItem, index: number, delta: string): void {
    this.send('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta });
  }

  argumentsDone(item: ConversationItem, index: number, name: string, args: string): void {
    this.send('response.function_call_arguments.done', { item_id: item.id, output_index: index, name, arguments: args });
  }

  reasoningDelta(item: ConversationItem, index: number, delta: string): void {
    this.send('response.reasoning_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta });
  }

  reasoningDone(item: ConversationItem, index: number, text: string): void {
    this.send('response.reasoning_text.done', { item_id: item.id, output_index: index, content_index: 0, text });
  }

  /** An event of an announced item, e.g. `response.mcp_call.completed` (a gateway tool's progress). */
  itemEvent(type: string, item: ConversationItem, index: number, payload: JsonObject = {}): void {
    this.send(type, { item_id: item.id, output_index: index, ...payload });
  }

  /** An item that arrives whole (a gateway tool's result): added and done at once. */
  itemWhole(item: ConversationItem): void {
    this.itemDone(this.itemAdded(item), item);
  }
}
