/**
 * One streamed model turn: chat-completion chunks in, Responses stream events out as they arrive (an
 * item is announced at its first delta, closed when the next item starts or the turn ends), and at the
 * end the same output items, finish reason and usage a non-streamed turn gives.
 */
import type { JsonObject } from '../contracts/json.js';
import { isPlainObject } from '../validation/paths.js';
import { newResponsesId } from './response-ids.js';
import type { ResponseEventWriter } from './response-events.js';
import { callIdOf, finishOf, reasoningOf, usageOf, type ChatFinishReason, type TranslatedTurn, type TurnUsage } from './chat-translation.js';
import type { ConversationItem, FunctionCallItem, MessageItem, OutputTextPart, ReasoningItem } from './response-types.js';

interface Open<T extends ConversationItem> {
  readonly item: T;
  /** Output index; -1 for a call a gateway tool runs (never streamed as a function call). */
  readonly index: number;
  text: string;
}

export class ChatStreamTurn {
  private readonly items: ConversationItem[] = [];
  private message: Open<MessageItem> | undefined;
  private reasoning: Open<ReasoningItem> | undefined;
  private readonly calls = new Map<number, Open<FunctionCallItem>>();
  /** Stream positions of the calls beyond the allowance: their deltas are ignored. */
  private readonly dropped = new Set<number>();
  private refusal = '';
  private finishReason: ChatFinishReason = 'other';
  private usage: TurnUsage = usageOf(undefined);

  /**
   * `maxCalls`: the tool calls this turn may still make; any beyond are neither sent nor kept.
   * `runByGateway`: names of calls a gateway tool session runs: kept, but not streamed (the session
   * announces the items that replace them when it runs them).
   */
  constructor(
    private readonly events: ResponseEventWriter,
    private readonly withReasoning: boolean,
    private readonly maxCalls = Number.POSITIVE_INFINITY,
    private readonly runByGateway: (name: string) => boolean = () => false,
  ) {}

  /** Takes one chunk and sends the events it causes. */
  push(chunk: JsonObject): void {
    if (isPlainObject(chunk.usage)) this.usage = usageOf(chunk.usage);
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isPlainObject(choice)) return;
    const delta = isPlainObject(choice.delta) ? choice.delta : {};
    const reasoning = reasoningOf(delta);
    if (reasoning.length > 0 && this.withReasoning) this.reason(reasoning);
    if (typeof delta.content === 'string' && delta.content.length > 0) this.say(delta.content);
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isPlainObject(call)) this.call(call);
    const finish = finishOf(choice.finish_reason);
    if (finish !== 'other') this.finishReason = finish;
  }

  /** Closes what is open and answers the turn. A turn without text, refusal or calls still answers an (empty) message. */
  finish(): TranslatedTurn {
    if (!this.message && this.calls.size === 0 && this.dropped.size === 0) {
      if (this.refusal.length > 0) this.refuse();
      else this.openMessage();
    }
    this.closeReasoning();
    this.closeMessage();
    for (const open of this.calls.values()) {
      open.item.arguments = open.text;
      open.item.status = 'completed';
      if (open.index < 0) continue;
      this.events.argumentsDone(open.item, open.index, open.item.name, open.text);
      this.events.itemDone(open.index, open.item);
    }
    this.calls.clear();
    return { items: this.items, finishReason: this.finishReason, usage: this.usage, droppedCalls: this.dropped.size };
  }

  /** The items so far (not the gateway's calls, never announced), those still open marked incomplete (the stream broke); no events. */
  abandon(): ConversationItem[] {
    if (this.message) {
      this.message.item.status = 'incomplete';
      const part = this.message.item.content[0];
      if (part?.type === 'output_text') part.text = this.message.text;
    }
    if (this.reasoning) {
      this.reasoning.item.status = 'incomplete';
      this.reasoning.item.content = [{ type: 'reasoning_text', text: this.reasoning.text }];
    }
    const unannounced = new Set<ConversationItem>();
    for (const open of this.calls.values()) {
      open.item.status = 'incomplete';
      open.item.arguments = open.text;
      if (open.index < 0) unannounced.add(open.item);
    }
    return this.items.filter((item) => !unannounced.has(item));
  }

  private add<T extends ConversationItem>(item: T): Open<T> {
    this.items.push(item);
    return { item, index: this.events.itemAdded(structuredClone(item)), text: '' };
  }

  private reason(delta: string): void {
    if (!this.reasoning) {
      this.reasoning = this.add<ReasoningItem>({ type: 'reasoning', id: newResponsesId('rs'), summary: [], content: [], status: 'in_progress' });
      this.events.partAdded(this.reasoning.item, this.reasoning.index, 0, { type: 'reasoning_text', text: '' });
    }
    this.reasoning.text += delta;
    this.events.reasoningDelta(this.reasoning.item, this.reasoning.index, delta);
  }

  private closeReasoning(): void {
    const open = this.reasoning;
    if (!open) return;
    this.reasoning = undefined;
    const part = { type: 'reasoning_text' as const, text: open.text };
    open.item.content = [part];
    open.item.status = 'completed';
    this.events.reasoningDone(open.item, open.index, open.text);
    this.events.partDone(open.item, open.index, 0, part);
    this.events.itemDone(open.index, open.item);
  }

  private openMessage(): Open<MessageItem> {
    this.closeReasoning();
    const open = this.add<MessageItem>({ type: 'message', id: newResponsesId('msg'), role: 'assistant', status: 'in_progress', content: [] });
    const part: OutputTextPart = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    open.item.content.push(part);
    this.events.partAdded(open.item, open.index, 0, { ...part });
    this.message = open;
    return open;
  }

  private say(delta: string): void {
    const open = this.message ?? this.openMessage();
    open.text += delta;
    this.events.textDelta(open.item, open.index, delta);
  }

  private closeMessage(): void {
    const open = this.message;
    if (!open) return;
    this.message = undefined;
    const part: OutputTextPart = { type: 'output_text', text: open.text, annotations: [], logprobs: [] };
    open.item.content = [part];
    open.item.status = this.finishReason === 'length' ? 'incomplete' : 'completed';
    this.events.textDone(open.item, open.index, open.text);
    this.events.partDone(open.item, open.index, 0, part);
    this.events.itemDone(open.index, open.item);
  }

  /** A refusal with no text: one message holding the refusal, sent whole. */
  private refuse(): void {
    this.closeReasoning();
    const part = { type: 'refusal' as const, refusal: this.refusal };
    const open = this.add<MessageItem>({ type: 'message', id: newResponsesId('msg'), role: 'assistant', status: 'in_progress', content: [] });
    this.events.partAdded(open.item, open.index, 0, { type: 'refusal', refusal: '' });
    open.item.content = [part];
    open.item.status = 'completed';
    this.events.refusalDone(open.item, open.index, this.refusal);
    this.events.partDone(open.item, open.index, 0, part);
    this.events.itemDone(open.index, open.item);
  }

  private call(delta: JsonObject): void {
    const position = typeof delta.index === 'number' ? delta.index : this.calls.size + this.dropped.size;
    if (this.dropped.has(position)) return;
    const fn = isPlainObject(delta.function) ? delta.function : {};
    let open = this.calls.get(position);
    if (!open) {
      if (this.calls.size >= this.maxCalls) {
        this.dropped.add(position);
        return;
      }
      const item: FunctionCallItem = {
        type: 'function_call',
        id: newResponsesId('fc'),
        call_id: callIdOf(delta.id),
        name: typeof fn.name === 'string' ? fn.name : '',
        arguments: '',
        status: 'in_progress',
      };
      if (this.runByGateway(item.name)) {
        this.items.push(item);
        open = { item, index: -1, text: '' };
      } else {
        this.closeReasoning();
        this.closeMessage();
        open = this.add(item);
      }
      this.calls.set(position, open);
    } else if (open.item.name === '' && typeof fn.name === 'string') {
      open.item.name = fn.name;
    }
    if (typeof fn.arguments === 'string' && fn.arguments.length > 0) {
      open.text += fn.arguments;
      if (open.index >= 0) this.events.argumentsDelta(open.item, open.index, fn.arguments);
    }
  }
}
