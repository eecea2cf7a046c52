// The official MCP TypeScript SDK's Streamable HTTP client against the
// example MCP server (examples/mcp -http), at the URL given: connect (the
// handshake of 2025-11-25, this client's latest: a session, whose id the
// server issues at initialize), list the tools (their input schemas), call
// add, stats (structuredContent), a validation failure (isError), count
// with its progress (before its result, on the call's event stream), and a
// sleep cancelled at its first progress report, then add again; close ends
// the session (DELETE). This SDK (1.32.2) has no stateless 2026-07-28 mode.
// Usage: node http_client.mjs URL; prints "ok" and exits 0, or says what
// failed and exits 1. TestTypeScriptSDKStreamableHTTP runs it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { checkCalls, checkCancel, eq, fail } from "./checks.mjs";

const url = new URL(process.argv[2]);

const transport = new StreamableHTTPClientTransport(url);
const client = new Client({ name: "interop-ts-http", version: "1.0.0" });
await client.connect(transport);
eq(client.getServerVersion().name, "mcp", "server name");
eq(transport.protocolVersion, "2025-11-25", "protocol version");
const session = transport.sessionId;
if (typeof session !== "string" || !/^[\x21-\x7e]{22,}$/.test(session)) fail("session id: " + session);

const { tools } = await client.listTools();
eq(tools.map((t) => t.name), ["add", "count", "sleep", "stats", "whoami"], "tools");
eq(tools[0].inputSchema.type, "object", "add's schema type");
eq(Object.keys(tools[0].inputSchema.properties).sort(), ["a", "b"], "add's properties");
eq(tools[0].inputSchema.required, ["a", "b"], "add's required");
eq(tools[3].inputSchema.required, ["values"], "stats's required");
if (!tools[3].outputSchema) fail("stats has no outputSchema");

await checkCalls(client);

const progress = [];
const res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, {
  onprogress: (p) => progress.push(p.progress),
});
eq(res.content[0].text, "3", "count");
eq(progress, [1, 2, 3], "count's progress, before its result");

await checkCancel(client);
eq(transport.sessionId, session, "the session id kept");

await transport.terminateSession();
eq(transport.sessionId, undefined, "the session ended");
await client.close();
console.log("ok");
