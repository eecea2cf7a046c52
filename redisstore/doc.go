// Package redisstore keeps what several instances of one MCP server (the
// same tools, behind one load balancer) share on Redis, through
// github.com/redis/go-redis/v9's UniversalClient: a single Redis, Sentinel
// or Cluster, and Valkey, all serve.
//
// It is a module of its own (github.com/toolrpc/toolrpc/redisstore), so
// that a program of module github.com/toolrpc/toolrpc alone links no
// Redis client.
//
// It holds, today, the notification bus: Bus is an mcp.Bus on Redis's
// publish/subscribe, for Server.Relay, so that a list changed, or a
// resource updated, on one instance is told to the legacy sessions and
// the subscriptions/listen calls of every other. To come (issue 25): the
// legacy sessions, the resumable event log of each stream, and the
// routing of a client's answer to a server request (elicitation,
// sampling) to the instance whose tool waits for it.
//
// Redis's publish/subscribe delivers at most once: what is published
// while an instance's subscription is down (Redis restarting, the
// network cut) does not reach that instance's clients.
package redisstore
