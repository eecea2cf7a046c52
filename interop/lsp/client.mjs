// npm's vscode-jsonrpc (the JSON-RPC library of VS Code's language
// clients) against the calculator (examples/calculator -framing lsp),
// started as a child process over stdio with LSP's Content-Length framing:
// calls with named and with positional params, an error with its data, a
// notification, progress (the calculator's notifications/progress, with
// the call's token) before its result, and a call cancelled with
// $/cancelRequest (answered -32800).
// Usage: node client.mjs /path/to/calculator; prints "ok" and exits 0, or
// says what failed and exits 1. TestVSCodeJSONRPCClient runs it.
import { spawn } from "node:child_process";
import rpc from "vscode-jsonrpc/node";

const { createMessageConnection, StreamMessageReader, StreamMessageWriter, ResponseError, CancellationTokenSource } = rpc;

const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
const eq = (got, want, what) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
};

const child = spawn(process.argv[2], ["-framing", "lsp"], { stdio: ["pipe", "pipe", "pipe"] });
let stderr = "";
child.stderr.on("data", (d) => { stderr += d; });
const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));

const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
const progress = [];
conn.onNotification("notifications/progress", (p) => { progress.push(p); });
conn.listen();

// Named params: one object.
eq(await conn.sendRequest("subtract", { minuend: 42, subtrahend: 23 }), 19, "subtract by name");
// Positional params: several arguments.
eq(await conn.sendRequest("subtract", 42, 23), 19, "subtract by position");
eq(await conn.sendRequest("sum", 1, 2, 4), 7, "sum");

// An error, with its code and data.
try {
  await conn.sendRequest("divide", { a: 1, b: 0 });
  fail("divide by 0 returned");
} catch (e) {
  if (!(e instanceof ResponseError)) fail("divide by 0: not a ResponseError: " + e);
  eq([e.code, e.message, e.data], [-32602, "Invalid params",
    [{ field: "b", rule: "ne", param: "0", message: "b must not be 0" }]], "divide by 0");
}
try {
  await conn.sendRequest("no_such_method");
  fail("an unknown method returned");
} catch (e) {
  eq([e.code, e.message], [-32601, "Method not found"], "an unknown method");
}

// A notification: handled (logged to stderr) before the next request.
await conn.sendNotification("notify_sum", 1, 2, 3);

// Progress with the call's token, each step before the result.
eq(await conn.sendRequest("count", { n: 3, _meta: { progressToken: "tok" } }), 3, "count");
eq(progress, [1, 2, 3].map((i) => ({ progressToken: "tok", progress: i, total: 3 })), "count's progress");

// A call cancelled at its first progress report: vscode-jsonrpc sends
// $/cancelRequest, the calculator answers -32800.
progress.length = 0;
const cts = new CancellationTokenSource();
conn.onNotification("notifications/progress", (p) => { progress.push(p); cts.cancel(); });
try {
  await conn.sendRequest("count", { n: 5, delay_ms: 60000, _meta: { progressToken: "slow" } }, cts.token);
  fail("the cancelled count returned");
} catch (e) {
  eq([e.code, e.message], [-32800, "Request cancelled"], "the cancelled count");
}
eq(progress.length, 1, "progress reports before the cancellation");

eq(await conn.sendRequest("subtract", 5, 3), 2, "subtract after the cancel");
conn.dispose();
child.stdin.end();
eq(await exited, 0, "the calculator's exit code at the end of its input");
if (!stderr.includes("notify_sum")) fail("the notification was not handled: " + stderr);
console.log("ok");
