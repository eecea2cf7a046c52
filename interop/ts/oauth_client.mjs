// The official MCP TypeScript SDK's OAuth client (1.32.2) against the example
// MCP server as a protected resource (examples/mcp -issuer -resource) of
// interop/authserver, at the URL given, with the SDK's auth providers:
//
//  1. a machine, with the SDK's ClientCredentialsProvider (machine /
//     machine-secret, scope mcp): the first request is refused 401, the SDK
//     finds the authorization server (the protected resource metadata, then
//     the authorization server's), gets a token and connects; whoami answers
//     machine: mcp; stats is refused 403 (insufficient_scope, mcp stats), and
//     the SDK's step-up asks for a token again, but this provider asks for
//     its own scope, not the challenge's, so the retry is refused too;
//  2. a user, with a provider of the authorization code flow (registered
//     dynamically, PKCE), whose redirectToAuthorization follows the
//     authorization server's redirects (its login approves at once) to the
//     loopback redirect URI: the connect ends in UnauthorizedError, the code
//     goes to transport.finishAuth, and a new connect works; whoami answers
//     alice: mcp; stats is refused 403, the SDK authorizes anew with the
//     challenge's scopes (mcp stats), finishAuth takes the code, and the
//     call of stats, made again, answers; whoami answers alice: mcp stats.
//
// Usage: node oauth_client.mjs URL ISSUER (the authorization server's). It writes a line for each HTTP exchange
// of the authorization (each request but the MCP ones answered 2xx: method,
// path, status and any WWW-Authenticate), and for what the tools answer,
// then "ok", and exits 0; or says what failed and exits 1.
// TestTypeScriptSDKOAuth runs it and compares its output, exactly.
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { eq, fail } from "./checks.mjs";

const url = new URL(process.argv[2]);
const issuer = process.argv[3];
const say = (line) => console.log(line);

// logged is fetch, saying each exchange but the MCP requests answered 2xx,
// and of a token request its grant, scope and resource.
async function logged(input, init) {
  const res = await fetch(input, init);
  const u = new URL(input instanceof Request ? input.url : input);
  if (u.pathname !== url.pathname || !res.ok) {
    let line = `${init?.method ?? "GET"} ${u.pathname} ${res.status}`;
    const challenge = res.headers.get("www-authenticate");
    if (challenge) line += " " + challenge;
    if (u.pathname.endsWith("/token")) {
      const form = new URLSearchParams(init.body);
      line += ` (${form.get("grant_type")}, scope ${form.get("scope") ?? "(none)"}, resource ${form.get("resource") ?? "(none)"})`;
    }
    say(line);
  }
  return res;
}

// connect connects a new client through a new transport with provider.
async function connect(provider) {
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: logged });
  const client = new Client({ name: "interop-ts-oauth", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

const text = async (client, name) => (await client.callTool({ name, arguments: {} })).content[0].text;
const stats = (client) => client.callTool({ name: "stats", arguments: { values: [1, 2] } });

// 1. The machine.
say("# client_credentials");
const machine = new ClientCredentialsProvider({
  clientId: "machine", clientSecret: "machine-secret", expectedIssuer: issuer, scope: "mcp",
});
let { client } = await connect(machine);
const { tools } = await client.listTools();
say("tools: " + tools.map((t) => t.name).join(" "));
say("whoami: " + (await text(client, "whoami")));
try {
  await stats(client);
  fail("stats answered without the scope stats");
} catch (e) {
  say(`stats: ${e.constructor.name} ${e.code}: ${e.message}`);
}
await client.close();

// 2. The user, through the authorization code flow.
say("# authorization_code");
class Browserless {
  constructor() {
    this.redirect = "http://127.0.0.1:49155/callback"; // never served: the redirect is read, not followed
  }
  get redirectUrl() { return this.redirect; }
  get clientMetadata() {
    return {
      client_name: "interop-ts", redirect_uris: [this.redirect], token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"], response_types: ["code"],
    };
  }
  state() { return (this._state = randomUUID()); }
  clientInformation() { return this._client; }
  saveClientInformation(info) { this._client = info; }
  tokens() { return this._tokens; }
  saveTokens(tokens) { this._tokens = tokens; }
  saveCodeVerifier(v) { this._verifier = v; }
  codeVerifier() { return this._verifier; }
  // redirectToAuthorization does what a browser would: it follows the
  // redirects of the authorization server (its login approves the test
  // user at once) until the one to the redirect URI, and keeps its code.
  async redirectToAuthorization(authorizationUrl) {
    say("authorize: scope " + authorizationUrl.searchParams.get("scope"));
    let next = authorizationUrl;
    for (let i = 0; i < 10; i++) {
      const res = await fetch(next, { redirect: "manual" });
      await res.body?.cancel();
      say(`GET ${next.pathname} ${res.status}`);
      const location = res.headers.get("location");
      if (res.status < 300 || res.status > 399 || !location) fail(`${next.pathname} answered ${res.status}`);
      next = new URL(location, next);
      if (next.origin + next.pathname === this.redirect) {
        eq(next.searchParams.get("state"), this._state, "the redirect's state");
        this.code = next.searchParams.get("code");
        if (!this.code) fail("no code: " + next.search);
        return;
      }
    }
    fail("more than 10 redirects");
  }
}
const user = new Browserless();
try {
  await connect(user);
  fail("connected before the authorization");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  say("connect: UnauthorizedError");
}
// finishAuth needs a transport of the provider; any one will do.
await new StreamableHTTPClientTransport(url, { authProvider: user, fetch: logged }).finishAuth(user.code);
let transport;
({ client, transport } = await connect(user));
say("whoami: " + (await text(client, "whoami")));
try {
  await stats(client);
  fail("stats answered without the scope stats");
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  say("stats: UnauthorizedError");
}
await transport.finishAuth(user.code);
const res = await stats(client);
eq(res.structuredContent, { count: 2, sum: 3, mean: 1.5, min: 1, max: 2 }, "stats");
say("stats: " + res.content[0].text);
say("whoami: " + (await text(client, "whoami")));
await transport.terminateSession();
await client.close();
say("ok");
