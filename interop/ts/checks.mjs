// What client.mjs and http_client.mjs share: how they fail, and the checks
// of the example's tools that they make alike over either transport.
export const fail = (msg) => { console.error("FAIL: " + msg); process.exit(1); };
export const eq = (got, want, what) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
};

// checkCalls calls add, stats (structuredContent), add without b (a
// validation failure: isError) and whoami (anonymous: no token here).
export async function checkCalls(client) {
  let res = await client.callTool({ name: "add", arguments: { a: 1, b: 2.5 } });
  eq(res.content, [{ type: "text", text: "3.5" }], "add");
  res = await client.callTool({ name: "stats", arguments: { values: [1, 2, 6] } });
  eq(res.structuredContent, { count: 3, sum: 9, mean: 3, min: 1, max: 6 }, "stats");
  res = await client.callTool({ name: "add", arguments: { a: 1 } });
  eq([res.isError, res.content[0].text], [true, "Invalid arguments:\n- b is required"], "validation failure");
  res = await client.callTool({ name: "whoami", arguments: {} });
  eq(res.content, [{ type: "text", text: "anonymous" }], "whoami");
}

// checkCancel cancels a sleep at its first progress report, then calls add:
// the connection serves on.
export async function checkCancel(client) {
  const ac = new AbortController();
  try {
    await client.callTool({ name: "sleep", arguments: { ms: 600000 } }, undefined, {
      signal: ac.signal, onprogress: (p) => { if (p.message === "sleeping") ac.abort("enough"); },
    });
    fail("the cancelled sleep returned");
  } catch (e) {
    if (ac.signal.aborted !== true) fail("sleep failed otherwise: " + e);
  }
  const res = await client.callTool({ name: "add", arguments: { a: 0, b: 0 } });
  eq(res.content[0].text, "0", "add after the cancel");
}
