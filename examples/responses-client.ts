// The Responses API of `npm start` with the official `openai` client (README, "Responses API").
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: process.env.BERTH_BASE_URL ?? 'http://127.0.0.1:8080/inference/v1',
  apiKey: process.env.BERTH_API_KEY, // the key `npm start` printed, or the BERTH_API_KEY it was given
});
const model = process.env.BERTH_MODEL ?? 'accounts/my-account/models/llama-3-8b';

// 1. A conversation: each turn continues the stored one before it with previous_response_id.
const first = await client.responses.create({ model, input: 'My ship is called Aurora.' });
const second = await client.responses.create({ model, input: 'What is my ship called?', previous_response_id: first.id });
console.log(`conversation ${first.id} -> ${second.id}: ${second.output_text}`);

// 2. Streaming: text deltas as the model produces them, then the whole response.
const stream = await client.responses.create({ model, input: 'Tell me about the harbor.', stream: true });
for await (const event of stream) {
  if (event.type === 'response.output_text.delta') process.stdout.write(event.delta);
  if (event.type === 'response.completed') console.log(`\nstreamed ${event.response.id}`);
}

// 3. A function tool round trip: the model asks for a call, this code runs it, the model answers.
const tools: OpenAI.Responses.FunctionTool[] = [{
  type: 'function', name: 'get_weather', description: 'The current weather of a city', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}];
const asked = await client.responses.create({ model, tools, input: 'What is the weather in Paris? Use get_weather.' });
const call = asked.output.find((item) => item.type === 'function_call');
if (call === undefined) throw new Error('the model answered without calling get_weather');
const { city } = JSON.parse(call.arguments) as { city: string };
const weather = { city, temperature_celsius: 21, sky: 'clear' }; // your function runs here
const answered = await client.responses.create({
  model, tools, previous_response_id: asked.id,
  input: [{ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(weather) }],
});
console.log(`tool ${call.name}(${call.arguments}) in ${asked.id} -> ${answered.id}: ${answered.output_text}`);
