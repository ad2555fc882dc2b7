// Twin content, payload family: what the payload endpoints (/bytes, /truncate,
// /partial-stream, /json, /compression, /range, /sse, /ndjson, /xml, /charset,
// /cloudevents, /jsonapi, /problem-details) and their control twins share.
// One module per kind of body; this index is what the endpoints import.
export * from './bytes.js';
export * from './delivery.js';
export * from './json.js';
export * from './sse.js';
export * from './standards.js';
export * from './streams.js';
