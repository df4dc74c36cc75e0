#!/usr/bin/env node
// Minimal MCP test client using the official TypeScript SDK (@modelcontextprotocol/sdk 1.32.x).
// Prints one JSON object per line on stdout; diagnostics go to stderr.
//
//   node ts_client.mjs --transport stdio [opts] -- CMD [ARGS...]
//   node ts_client.mjs --transport http  [opts] --url http://127.0.0.1:PORT/mcp
// opts:
//   --call NAME            tool to call once (default: none)
//   --args JSON            arguments object for --call (default: {})
//   --bench N              do N sequential tools/call of --call and print requests/second
//   --wait-list-changed S  after the call, wait up to S seconds for notifications/tools/list_changed
//   --touch FILE           (with --wait-list-changed) append to FILE after the handler is installed,
//                          so the test itself can trigger the server's reload
//   --touch-text TEXT      what to append (default: a comment line)
//   --timeout-ms MS        per-request timeout (default 30000)
// Exit code: 0 ok; 1 on any failure (connect error, RPC error, list_changed not received);
//            an isError tool result is NOT a failure here: it's printed as {"isError":true,...}.
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const argv = process.argv.slice(2);
const dd = argv.indexOf('--');
const cmd = dd >= 0 ? argv.slice(dd + 1) : [];
const flags = dd >= 0 ? argv.slice(0, dd) : argv;
const opt = (name, def) => { const i = flags.indexOf(name); return i >= 0 ? flags[i + 1] : def; };
const transportKind = opt('--transport', 'stdio');
const callName = opt('--call');
const callArgs = JSON.parse(opt('--args', '{}'));
const bench = Number(opt('--bench', '0'));
const waitLC = Number(opt('--wait-list-changed', '0'));
const touch = opt('--touch');
const touchText = opt('--touch-text');
const timeout = Number(opt('--timeout-ms', '30000'));

const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

let transport;
if (transportKind === 'stdio') {
  if (!cmd.length) { console.error('stdio needs: -- CMD [ARGS...]'); process.exit(2); }
  // PITFALL: without `env`, the child gets only getDefaultEnvironment() (HOME, PATH, SHELL, TERM,
  // USER, LOGNAME) - not RUST_LOG etc. Pass the full environment through explicitly.
  transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1),
    env: { ...getDefaultEnvironment(), ...process.env }, stderr: 'inherit' });
} else if (transportKind === 'http') {
  transport = new StreamableHTTPClientTransport(new URL(opt('--url')));
} else { console.error('bad --transport'); process.exit(2); }

const client = new Client({ name: 'mcpick-ts-test-client', version: '0.0.1' });

// Raw notification handler. (Alternative: new Client(info, { listChanged: { tools: { onChanged(err, tools) {...} } } })
// which debounces and auto-refetches tools/list, but only if the server advertised tools.listChanged.)
let listChanged = 0;
let onListChanged = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; onListChanged(); });

try {
  const t0 = performance.now();
  await client.connect(transport, { timeout });
  const connectMs = performance.now() - t0;
  out({ event: 'connected', connect_ms: +connectMs.toFixed(2), protocol_version: transport.protocolVersion ?? null,
        server: client.getServerVersion(), capabilities: client.getServerCapabilities() });

  const tools = await client.listTools(undefined, { timeout });
  out({ event: 'tools', names: tools.tools.map((t) => t.name) });

  if (callName) {
    const r = await client.callTool({ name: callName, arguments: callArgs }, undefined, { timeout });
    out({ event: 'call', tool: callName, isError: r.isError ?? false, content: r.content,
          structuredContent: r.structuredContent ?? null });
  }

  if (bench > 0) {
    if (!callName) throw new Error('--bench needs --call');
    const b0 = performance.now();
    let errors = 0;
    for (let i = 0; i < bench; i++) {
      const r = await client.callTool({ name: callName, arguments: callArgs }, undefined, { timeout });
      if (r.isError) errors++;
    }
    const secs = (performance.now() - b0) / 1000;
    out({ event: 'bench', calls: bench, seconds: +secs.toFixed(3), rps: +(bench / secs).toFixed(1), isError_results: errors });
  }

  if (waitLC > 0) {
    const got = new Promise((resolve) => { if (listChanged) resolve(true); onListChanged = () => resolve(true); });
    const t1 = performance.now();
    if (touch) fs.appendFileSync(touch, touchText ?? `# touched ${Date.now()}\n`);
    const ok = await Promise.race([got, new Promise((r) => setTimeout(() => r(false), waitLC * 1000))]);
    out({ event: 'list_changed', received: ok, after_ms: +(performance.now() - t1).toFixed(1) });
    if (ok) {
      const again = await client.listTools(undefined, { timeout });
      out({ event: 'tools', names: again.tools.map((t) => t.name) });
    } else { process.exitCode = 1; }
  }
} catch (e) {
  out({ event: 'error', message: String(e?.message ?? e), code: e?.code ?? null });
  process.exitCode = 1;
} finally {
  // For HTTP, terminateSession() sends DELETE /mcp (stateful sessions); ignore 405.
  if (transportKind === 'http') { try { await transport.terminateSession(); } catch {} }
  await client.close().catch(() => {});
}
