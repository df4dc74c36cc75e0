#!/usr/bin/env node
// Brief demo of @modelcontextprotocol/client 2.x (the v2 split package) with versionNegotiation mode.
//   node ts2_client.mjs --mode auto|legacy [--probe-timeout-ms MS] --transport stdio -- CMD ARGS...
//   node ts2_client.mjs --mode auto|legacy --transport http --url http://127.0.0.1:PORT/mcp
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const argv = process.argv.slice(2);
const dd = argv.indexOf('--');
const cmd = dd >= 0 ? argv.slice(dd + 1) : [];
const flags = dd >= 0 ? argv.slice(0, dd) : argv;
const opt = (n, d) => { const i = flags.indexOf(n); return i >= 0 ? flags[i + 1] : d; };
const mode = opt('--mode', 'legacy');               // SDK default is 'legacy'
const probeTimeout = opt('--probe-timeout-ms');
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const client = new Client({ name: 'mcpick-ts2-test', version: '0.0.1' }, {
  versionNegotiation: { mode, ...(probeTimeout ? { probe: { timeoutMs: Number(probeTimeout) } } : {}) },
});
// v2: notification handlers are keyed by method string (no zod schema needed)
client.setNotificationHandler('notifications/tools/list_changed', () => out({ event: 'list_changed' }));

const transport = opt('--transport', 'stdio') === 'http'
  ? new StreamableHTTPClientTransport(new URL(opt('--url')))
  : new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), env: { ...process.env }, stderr: 'ignore' });
try {
  const t0 = performance.now();
  await client.connect(transport);
  out({ event: 'connected', mode, connect_ms: +(performance.now() - t0).toFixed(1),
        protocol_version: client.getNegotiatedProtocolVersion(), era: client.getProtocolEra() });
  const tools = await client.listTools();
  out({ event: 'tools', names: tools.tools.map((t) => t.name) });
  const name = opt('--call');
  if (name) {
    const r = await client.callTool({ name, arguments: JSON.parse(opt('--args', '{}')) });
    out({ event: 'call', isError: r.isError ?? false, content: r.content, structuredContent: r.structuredContent ?? null });
  }
} catch (e) { out({ event: 'error', message: String(e?.message ?? e) }); process.exitCode = 1; }
finally { await client.close().catch(() => {}); }
