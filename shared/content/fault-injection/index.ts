// Twin content, fault-injection family: what the fault endpoints and their
// control twins share. connection.ts: faults in how one answer is delivered;
// retries.ts: answers that change from call to call; mix.ts: /mix and the
// wire faults' public names. This index is what the endpoints import.
export * from './connection.js';
export * from './retries.js';
export * from './mix.js';
