// Twin content, agent family: what the agent endpoints and their control twins
// share. llm.ts: the OpenAI-compatible /llm/v1/chat/completions; mcp.ts: the
// /mcp server's modes and echo tool; json-rpc.ts: the JSON-RPC 2.0 envelope
// both protocol endpoints speak. This index is what the endpoints import.
export * from './json-rpc.js';
export * from './llm.js';
export * from './anthropic.js';
export * from './responses.js';
export * from './gemini.js';
export * from './mcp.js';
export * from './mcp-http.js';
export * from './mcp-methods.js';
