package rpc

// The notifications a connection handles itself.
const (
	// ProgressNotification is the Model Context Protocol's progress report,
	// params {"progressToken": T, "progress": N, "total": N, "message": S}:
	// when T is the token of a call of ours (see WithProgress), it goes to
	// that call; otherwise to the Handler, like any notification.
	ProgressNotification = "notifications/progress"
	// CancelRequest is the Language Server Protocol's cancellation,
	// params {"id": X}: X is answered RequestCancelled.
	CancelRequest = "$/cancelRequest"
	// CancelledNotification is the Model Context Protocol's cancellation,
	// params {"requestId": X, "reason": "..."}: X is not answered at all.
	CancelledNotification = "notifications/cancelled"
)

// ReservedPrefix starts the method names JSON-RPC 2.0 reserves for
// rpc-internal methods. A request for one of them is answered
// MethodNotFound before any handler runs, except for [Discover].
const ReservedPrefix = "rpc."

// Discover is the one name under [ReservedPrefix] that reaches the
// Handler: OpenRPC's service discovery method, which the framework
// answers (package service, with Service.ServeDiscover). A request for any
// other rpc. name is answered MethodNotFound before any handler runs.
const Discover = "rpc.discover"
