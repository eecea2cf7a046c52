// The official MCP TypeScript SDK's client against the example MCP server
// (examples/mcp), started as a child process over stdio: connect (the
// handshake of 2025-11-25, this client's latest), list the tools, call
// add, stats (structuredContent), a validation failure (isError), count,
// and a sleep cancelled at its first progress report, then add again.
// Usage: node client.mjs /path/to/server; prints "ok" and exits 0, or
// says what failed and exits 1. TestTypeScriptSDKClient runs it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const server = process.argv[2];
const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const eq = (got, want, what) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
};

const client = new Client({ name: "interop-ts", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: server, stderr: "ignore" }));
eq(client.getServerVersion().name, "mcp", "server name");

const { tools } = await client.listTools();
eq(tools.map((t) => t.name), ["add", "count", "sleep", "stats"], "tools");
eq(tools[0].inputSchema.required, ["a", "b"], "add's required");

let res = await client.callTool({ name: "add", arguments: { a: 1, b: 2.5 } });
eq(res.content, [{ type: "text", text: "3.5" }], "add");

res = await client.callTool({ name: "stats", arguments: { values: [1, 2, 6] } });
eq(res.structuredContent, { count: 3, sum: 9, mean: 3, min: 1, max: 6 }, "stats");

res = await client.callTool({ name: "add", arguments: { a: 1 } });
eq([res.isError, res.content[0].text], [true, "Invalid arguments:\n- b is required"], "validation failure");

// count's progress is not checked here: this client handles a notification
// read together with the response after the response, and then drops it as
// of an unknown token (TestGoSDKClient and TestMCPGoClient check it).
res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, { onprogress: () => {} });
eq(res.content[0].text, "3", "count");

const ac = new AbortController();
try {
  await client.callTool({ name: "sleep", arguments: { ms: 600000 } }, undefined, {
    signal: ac.signal, onprogress: (p) => { if (p.message === "sleeping") ac.abort("enough"); },
  });
  fail("the cancelled sleep returned");
} catch (e) {
  if (ac.signal.aborted !== true) fail("sleep failed otherwise: " + e);
}

res = await client.callTool({ name: "add", arguments: { a: 0, b: 0 } });
eq(res.content[0].text, "0", "add after the cancel");
await client.close();
console.log("ok");
