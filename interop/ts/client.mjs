// The official MCP TypeScript SDK's client against the example MCP server
// (examples/mcp), started as a child process over stdio: connect (the
// handshake of 2025-11-25, this client's latest), list the tools, call
// add, stats (structuredContent), a validation failure (isError), count
// with its progress (before its result),
// and a sleep cancelled at its first progress report, then add again.
// Usage: node client.mjs /path/to/server; prints "ok" and exits 0, or
// says what failed and exits 1. TestTypeScriptSDKClient runs it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { checkCalls, checkCancel, eq } from "./checks.mjs";

const server = process.argv[2];

const client = new Client({ name: "interop-ts", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: server, stderr: "ignore" }));
eq(client.getServerVersion().name, "mcp", "server name");

const { tools } = await client.listTools();
eq(tools.map((t) => t.name), ["add", "count", "sleep", "stats", "whoami"], "tools");
eq(tools[0].inputSchema.required, ["a", "b"], "add's required");

await checkCalls(client);

// count's progress, before its result (progress.mjs checks it 100 times).
const progress = [];
const res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, {
  onprogress: (p) => progress.push(p.progress),
});
eq(res.content[0].text, "3", "count");
eq(progress, [1, 2, 3], "count's progress, before its result");

await checkCancel(client);
await client.close();
console.log("ok");
