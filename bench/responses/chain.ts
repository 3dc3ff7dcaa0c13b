import { Pool } from 'undici';

/**
 * One side of the chain comparison: a keep-alive connection (kept across chains, so no turn pays for a
 * connect), the path of chat completions there, the key and the model name.
 */
export interface ChainTarget {
  readonly pool: Pool;
  readonly chatPath: string;
  readonly headers: Record<string, string>;
  readonly model: string;
}

/** One keep-alive connection to a loopback server. */
export function chainPool(url: string): Pool {
  if (!/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test(url)) throw new Error('benchmarks target loopback only');
  return new Pool(url, { connections: 1, pipelining: 1 });
}

export const CHAIN_MAX_TOKENS = 8;

/** The user's message of turn `turn` (0-based): a little longer each turn, like a real conversation. */
export const chainInput = (turn: number) => `Turn ${turn + 1}: tell me a little more about the harbor and its ships.`;

async function postJson(pool: Pool, path: string, headers: Record<string, string>, body: unknown): Promise<{ micros: number; json: Record<string, unknown> }> {
  const started = process.hrtime.bigint();
  const response = await pool.request({ path, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.body.text();
  const micros = Number(process.hrtime.bigint() - started) / 1000;
  if (response.statusCode !== 200) throw new Error(`${path}: HTTP ${response.statusCode} ${text.slice(0, 300)}`);
  return { micros, json: JSON.parse(text) as Record<string, unknown> };
}

/**
 * A `turns`-long previous_response_id chain through the gateway: each turn continues the one before, or
 * with `fixedLength` each turn after the first continues the first (as many lookups and writes, but the
 * conversation never grows: the control for how turn time grows with the chain's length).
 * Returns each turn's time (µs, request sent to answer read) and the assistant's text of each turn (the
 * chat chains replay them).
 */
export async function responseChain(target: ChainTarget, turns: number, fixedLength = false): Promise<{ micros: number[]; texts: string[] }> {
  const micros: number[] = [];
  const texts: string[] = [];
  let previous: string | null = null;
  for (let turn = 0; turn < turns; turn += 1) {
    const { micros: took, json } = await postJson(target.pool, '/inference/v1/responses', target.headers, {
      model: target.model, input: chainInput(turn), max_output_tokens: CHAIN_MAX_TOKENS, previous_response_id: previous,
    });
    if (typeof json.id !== 'string') throw new Error(`turn ${turn + 1}: a stored response has a string id, got ${JSON.stringify(json.id)}`);
    if (!fixedLength || previous === null) previous = json.id;
    micros.push(took);
    texts.push(outputText(json));
  }
  return { micros, texts };
}

/**
 * The same conversation as chat completions the client keeps itself, growing by the same messages (the
 * user's input and the answers of `texts`), with the body the gateway sends the engine for each turn:
 * straight to the engine, or through the gateway's chat-completions route.
 */
export async function chatChain(target: ChainTarget, texts: readonly string[]): Promise<number[]> {
  const micros: number[] = [];
  const messages: Array<{ role: string; content: string }> = [];
  for (const [turn, text] of texts.entries()) {
    messages.push({ role: 'user', content: chainInput(turn) });
    const { micros: took } = await postJson(target.pool, target.chatPath, target.headers, {
      model: target.model, messages, temperature: 1, top_p: 1, max_tokens: CHAIN_MAX_TOKENS,
    });
    micros.push(took);
    messages.push({ role: 'assistant', content: text });
  }
  return micros;
}

/** The text of a response's output messages, as the `openai` client's `output_text` joins it. */
function outputText(response: Record<string, unknown>): string {
  const output = Array.isArray(response.output) ? (response.output as Array<Record<string, unknown>>) : [];
  return output
    .filter((item) => item.type === 'message' && Array.isArray(item.content))
    .flatMap((item) => item.content as Array<Record<string, unknown>>)
    .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('');
}

/** Least-squares slope of `values` over their indexes (here: µs added per turn of chain length). */
export function slopePerStep(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, v) => sum + v, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of values.entries()) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return covariance / variance;
}
