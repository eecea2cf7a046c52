// Progress before the result, every time: the official MCP TypeScript SDK's
// client calls count (n: 3, with an onprogress) RUNS times in a row
// against the example MCP server (examples/mcp), over stdio (a child
// process) or Streamable HTTP (a URL), and counts the calls whose three
// progress reports did not all reach onprogress, in order, before the
// result. This client runs a notification's handler a microtask after it
// reads it and a response's at once (typescript-sdk #2580): reports read
// together with the response reach it after the response, as of an unknown
// token. The server must let them be read first.
// Usage: node progress.mjs stdio /path/to/server [RUNS]
//        node progress.mjs http URL [RUNS]
// prints "ok RUNS" and exits 0, or says how many calls lost progress and
// exits 1. TestTypeScriptSDKProgressStdio and
// TestTypeScriptSDKProgressStreamableHTTP run it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { eq, fail } from "./checks.mjs";

const [how, where, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 100);

let transport;
switch (how) {
  case "stdio":
    transport = new StdioClientTransport({ command: where, stderr: "ignore" });
    break;
  case "http":
    transport = new StreamableHTTPClientTransport(new URL(where));
    break;
  default:
    fail("usage: node progress.mjs stdio|http SERVER [RUNS]");
}

const client = new Client({ name: "interop-ts-progress", version: "1.0.0" });
const errors = [];
client.onerror = (e) => errors.push(String(e));
await client.connect(transport);

let lost = 0;
let first = "";
for (let i = 0; i < runs; i++) {
  const progress = [];
  const res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  });
  eq(res.content[0].text, "3", "count");
  if (JSON.stringify(progress) !== "[1,2,3]") {
    lost++;
    first ||= `call ${i + 1}: progress ${JSON.stringify(progress)} before the result`;
  }
}
// Reports that came after their result are handled by now (a microtask
// later): they are the client's errors.
await new Promise((resolve) => setImmediate(resolve));
if (how === "http") await transport.terminateSession();
await client.close();
if (lost > 0 || errors.length > 0) {
  fail(`${lost} of ${runs} calls lost progress (${first}); ${errors.length} client errors${errors.length ? ", the first: " + errors[0] : ""}`);
}
console.log("ok " + runs);
