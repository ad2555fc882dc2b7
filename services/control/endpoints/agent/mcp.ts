import { LINKED_PATHS, mcpServerName } from '../../../../shared/content/discovery.js';
import {
  MCP_EXAMPLE, MCP_KEEPALIVE_MS, MCP_MAX_BODY, MCP_MODES, MCP_SESSION_HEADER, SSE_KEEPALIVE, mcpExchange, sseText, type McpPlan,
} from '../../../../shared/content/agent/index.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { errorDocument } from '../../../../shared/registry/errors.js';
import { defineControlEndpoint, type HttpContext } from '../../../../shared/http/http-service.js';
import type { ErrorStatus } from '../../../../shared/registry/errors.js';
import { readBody } from './json-rpc.js';

// A correct MCP server over Streamable HTTP (2025-03-26, 2025-06-18,
// 2025-11-25): sessions in the store, answers as JSON or SSE by Accept, a GET
// stream, DELETE, resumption by Last-Event-ID (shared/content/agent/mcp-http.ts).
export default defineControlEndpoint({
  id: 'mcp',
  path: LINKED_PATHS.mcp,
  methods: ['POST', 'GET', 'DELETE'],
  category: 'agent',
  summary: 'The MCP server the server card names, over Streamable HTTP: sessions, JSON or SSE answers, a GET stream, resumption, tools (echo, add with structuredContent, countdown with progress), paged resources and prompts',
  params: {
    mode: oneOf(MCP_MODES, { default: 'version-mismatch', description: 'accepted for parity with the chaos /mcp; always correct' }),
  },
  holding: {
    // A GET stream is held until MAX_RESPONSE_MS; a POST's stream lasts at most its countdown.
    longestMs: (config) => config.maxResponseMs,
  },
  docs: {
    example: MCP_EXAMPLE,
  },
  handle(ctx) {
    return serve(ctx);
  },
});

async function serve(ctx: HttpContext): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  const body = method === 'POST' ? await readBody(ctx.req, MCP_MAX_BODY) : Buffer.alloc(0);
  const header = (name: string): string | undefined => {
    const value = ctx.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const plan = await mcpExchange({ method, header, body, clientAddress: ctx.clientAddress, serverName: mcpServerName(ctx.config.urls.control) }, ctx.store);
  render(ctx, plan);
}

function render(ctx: HttpContext, plan: McpPlan): void {
  const session: [string, string][] = plan.sessionId !== undefined ? [[MCP_SESSION_HEADER, plan.sessionId]] : [];
  if (plan.kind === 'json') {
    const text = plan.body === undefined ? '' : `${JSON.stringify(plan.body)}\n`;
    if (plan.real) {
      // A real error: no X-Chaos-* line, as on every host.
      const response = errorDocument(plan.status as ErrorStatus, 'application/json', Buffer.from(text));
      ctx.res.writeHead(response.status, response.headers.flat());
      ctx.res.end(ctx.req.method === 'HEAD' ? undefined : response.body);
      return;
    }
    ctx.send(plan.status, 'application/json', text, undefined, session);
    return;
  }
  const head: string[] = ['Content-Type', 'text/event-stream', 'Cache-Control', 'no-cache'];
  for (const [name, value] of ctx.headers) head.push(name, value);
  for (const [name, value] of session) head.push(name, value);
  const res = ctx.res;
  res.writeHead(200, head);
  if (ctx.req.method === 'HEAD') {
    res.end();
    return;
  }
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  res.once('close', () => {
    for (const timer of timers) clearTimeout(timer);
  });
  const deadline = performance.now() + ctx.config.maxResponseMs;
  const send = (i: number): void => {
    if (res.destroyed) return;
    const event = plan.events[i];
    if (event === undefined) {
      if (!plan.hold) res.end();
      else keepAlive();
      return;
    }
    res.write(sseText(event));
    const next = plan.events[i + 1];
    later(next?.pauseMs ?? 0, () => send(i + 1));
  };
  // A held GET stream: a comment now and then, ended at MAX_RESPONSE_MS (the client reconnects with Last-Event-ID).
  const keepAlive = (): void => {
    const left = deadline - performance.now();
    if (left <= 0) {
      res.end();
      return;
    }
    later(Math.min(MCP_KEEPALIVE_MS, left), () => {
      if (performance.now() < deadline) res.write(SSE_KEEPALIVE);
      keepAlive();
    });
  };
  send(0);
}
