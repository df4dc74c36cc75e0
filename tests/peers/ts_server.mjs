// Tiny reference MCP server built with @modelcontextprotocol/sdk 1.32.x (speaks 2025-11-25 only,
// i.e. a "legacy"/handshake-era server, like the mcpick server under test).
//   node ts_server.mjs --stdio [--watch FILE]
//   node ts_server.mjs --http 127.0.0.1:PORT [--watch FILE]      (Streamable HTTP at /mcp)
// Tools: echo{text}, add{a,b} (structuredContent), fail{} (isError result).
// --watch FILE: whenever FILE's mtime changes, every live session gets notifications/tools/list_changed.
import http from 'node:http';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const watchFile = opt('--watch');
const live = new Set();

function makeServer() {
  const s = new McpServer({ name: 'tiny-ts-server', version: '0.0.1' }, { capabilities: { tools: { listChanged: true } } });
  s.registerTool('echo', { description: 'Echo text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() } },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }));
  s.registerTool('fail', { description: 'Always returns isError', inputSchema: {} },
    async () => ({ content: [{ type: 'text', text: 'boom' }], isError: true }));
  live.add(s);
  return s;
}

if (watchFile) {
  fs.watchFile(watchFile, { interval: 100 }, (cur, prev) => {
    if (cur.mtimeMs !== prev.mtimeMs) {
      for (const s of live) { try { s.sendToolListChanged(); } catch (e) { console.error('notify failed', e); } }
    }
  });
}

if (argv.includes('--stdio')) {
  const s = makeServer();
  await s.connect(new StdioServerTransport());
  console.error('tiny-ts-server: stdio ready');
} else if (opt('--http')) {
  const [host, port] = opt('--http').split(':');
  const transports = {};
  const readBody = (req) => new Promise((res, rej) => { let b = ''; req.on('data', (c) => b += c); req.on('end', () => res(b)); req.on('error', rej); });
  http.createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) { res.writeHead(404).end(); return; }
    const sid = req.headers['mcp-session-id'];
    let body;
    if (req.method === 'POST') { const raw = await readBody(req); try { body = JSON.parse(raw); } catch { body = undefined; } }
    let t = sid ? transports[sid] : undefined;
    if (!t && req.method === 'POST' && !sid && body && isInitializeRequest(body)) {
      const s = makeServer();
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { transports[id] = t; } });
      t.onclose = () => { if (t.sessionId) delete transports[t.sessionId]; live.delete(s); };
      await s.connect(t);
    }
    if (!t) {
      res.writeHead(sid ? 404 : 400, { 'content-type': 'application/json' }).end(JSON.stringify({
        jsonrpc: '2.0', id: null, error: { code: -32000, message: sid ? 'Unknown session' : 'Bad Request: no session; send initialize first' } }));
      return;
    }
    await t.handleRequest(req, res, body);
  }).listen(Number(port), host, () => console.error(`tiny-ts-server: http://${host}:${port}/mcp`));
} else {
  console.error('usage: ts_server.mjs --stdio | --http HOST:PORT [--watch FILE]'); process.exit(2);
}
