// MCP tools run by the gateway (README, "Responses API"): `npm start` with BERTH_ALLOW_LOOPBACK_URLS=true
// calls this file's MCP server on loopback. Without the flag the gateway refuses loopback servers (400).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

// 1. An MCP server with one tool, `add`, written with the official SDK (stateless streamable HTTP).
function calculator(): Server {
  const server = new Server({ name: 'calculator', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{
      name: 'add', description: 'Adds two numbers',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { a, b } = request.params.arguments as { a: number; b: number };
    return { content: [{ type: 'text', text: String(a + b) }] };
  });
  return server;
}
const http = createServer(async (request, response) => {
  if (request.method !== 'POST') return void response.writeHead(405).end();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  response.on('close', () => void transport.close());
  await calculator().connect(transport);
  await transport.handleRequest(request, response);
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
const serverUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;

// 2. The gateway lists the server's tools, offers `add` to the model as `calculator__add`, runs the
//    model's call on the server and gives the model the result, which it answers from.
const client = new OpenAI({
  baseURL: process.env.BERTH_BASE_URL ?? 'http://127.0.0.1:8080/inference/v1',
  apiKey: process.env.BERTH_API_KEY,
});
const model = process.env.BERTH_MODEL ?? 'accounts/my-account/models/llama-3-8b';
const tools: OpenAI.Responses.Tool[] = [{ type: 'mcp', server_label: 'calculator', server_url: serverUrl, require_approval: 'never' }];
const response = await client.responses.create({ model, tools, input: 'What is 2 + 3? Use calculator__add.' });
for (const item of response.output) {
  if (item.type === 'mcp_list_tools') console.log(`tools of ${item.server_label}: ${item.tools.map((tool) => tool.name).join(', ')}`);
  if (item.type === 'mcp_call') console.log(`mcp_call ${item.name}(${item.arguments}) -> ${item.output ?? `error: ${item.error}`}`);
}
console.log(`answer in ${response.id}: ${response.output_text}`);

// 3. Streamed, with the client's stream helper: the MCP events come before the answer's text.
const stream = client.responses.stream({ model, tools, input: 'Add 4 and 5 with calculator__add.' });
stream.on('event', (event) => {
  if (event.type.startsWith('response.mcp_')) console.log(event.type);
});
console.log(`streamed ${(await stream.finalResponse()).id}`);
http.closeAllConnections();
http.close();
