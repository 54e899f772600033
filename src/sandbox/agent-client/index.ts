export { AgentConnection, HOST_MARGIN_MS, type AgentCallOptions, type AgentConnectionOptions } from './agent-connection.js';
export { agentDirectoryPath } from './agent-directory.js';
export { AgentSession, type AgentCall } from './agent-session.js';
export { AGENT_PROTOCOL_VERSION, type AgentOp, type ReadyEvent, type WireErrorCode } from './wire-protocol.js';
