// Shared by the agent and discovery tests (tests/integration/agent.test.ts and
// discovery.test.ts): raw-socket reads of the chaos host, fetches of the control
// host, the structure of each discovery schema checked against its specification,
// and the link walk that says whether a document's URLs answer.
import type t from 'tap';
import { completeByLength, get, parseHead, rawExchange, type ParsedResponse } from './raw.js';
import { testConfig } from './servers.js';
import type { Config } from '../../shared/config/config.js';

/** A subtest's `t` (the last overload of t.test takes just the callback). */
export type TapTest = Parameters<Parameters<typeof t.test>[0]>[0];

// Parsed JSON documents: tests walk them freely.
export type Doc = Record<string, any>;

export const SCHEMAS = ['openid-configuration', 'oauth-authorization-server', 'webfinger', 'jwks', 'host-meta', 'agent-card'] as const;
export type Schema = (typeof SCHEMAS)[number];

// Distinct public hosts, so every claim can be told apart.
export function discoveryConfig(): Config {
  return testConfig({ PUBLIC_IDENTITY_URL: 'http://identity.test:8080', PUBLIC_AGENTS_URL: 'http://agents.test:8080' });
}

export interface ChaosReply {
  readonly head: ParsedResponse;
  readonly body: Buffer;
  readonly json: Doc;
}

/** Path and query of `url`, after checking it names `origin`. */
export function localPath(t: TapTest, url: string, origin: string): string {
  const u = new URL(url.replace('{uri}', encodeURIComponent('acct:someone@chaos.test')));
  t.equal(u.origin, new URL(origin).origin, `${url} is on ${origin}`);
  return u.pathname + u.search;
}

/** Every http(s) string in a document, except relation types and schema identifiers (names of specifications, not links). */
export function urlsIn(doc: unknown): string[] {
  const out: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') {
      if (key !== 'rel' && key !== '$schema' && /^https?:\/\//.test(value)) out.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key);
    } else if (value && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, name);
    }
  };
  walk(doc, '');
  return out;
}

/** Readers of one chaos server and one control server on the loopback. */
export function discoveryClients(chaosPort: number, controlPort: number, controlUrl: string) {
  async function chaosGet(path: string, port: number = chaosPort, method = 'GET'): Promise<ChaosReply> {
    const headOnly = (data: Buffer): boolean => data.includes('\r\n\r\n');
    const result = await rawExchange(port, get(path, {}, method), { until: method === 'HEAD' ? headOnly : completeByLength, timeoutMs: 8000 });
    const head = parseHead(result.data);
    const length = Number(head.header('content-length'));
    const body = method === 'HEAD' ? Buffer.alloc(0) : head.rest.subarray(0, length);
    let json: Doc = {};
    try {
      json = JSON.parse(body.toString('utf8')) as Doc;
    } catch {
      /* not every answer is JSON (the 404 catalog is HTML) */
    }
    return { head, body, json };
  }

  async function controlFetch(path: string, init?: RequestInit): Promise<Response> {
    return fetch(`http://127.0.0.1:${controlPort}${path}`, init);
  }

  /** Every link in a control document answers on the control host; documents answer 200. */
  async function expectResolving(t: TapTest, doc: Doc, links = true): Promise<void> {
    const urls = urlsIn(doc);
    if (links) t.ok(urls.length > 0, 'the document links somewhere');
    for (const url of urls) {
      const res = await controlFetch(localPath(t, url, controlUrl));
      await res.arrayBuffer();
      t.not(res.status, 404, `${url} answers on the control host (${res.status})`);
    }
  }

  return { chaosGet, controlFetch, expectResolving };
}

// --- Structure of each schema, checked against the specifications ----------

export const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

export function checkStructure(t: TapTest, schema: Schema, doc: Doc): void {
  const strings = (names: string[]): void => {
    for (const name of names) t.type(doc[name], 'string', `${schema}: ${name} is a string`);
  };
  const stringArrays = (names: string[]): void => {
    for (const name of names) t.ok(isStringArray(doc[name]), `${schema}: ${name} is an array of strings`);
  };
  switch (schema) {
    case 'openid-configuration':
      // OpenID Connect Discovery 1.0 §3: REQUIRED members.
      strings(['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri']);
      stringArrays(['response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']);
      break;
    case 'oauth-authorization-server':
      // RFC 8414 §2.
      strings(['issuer', 'authorization_endpoint', 'token_endpoint']);
      stringArrays(['response_types_supported']);
      break;
    case 'webfinger':
      // RFC 7033 §4.4: subject, aliases, links (each with rel).
      strings(['subject']);
      if (doc.aliases !== undefined) stringArrays(['aliases']);
      t.ok(Array.isArray(doc.links) && doc.links.length > 0, 'links');
      for (const link of doc.links as Doc[]) {
        t.type(link.rel, 'string', 'link rel');
        if (link.href !== undefined) t.type(link.href, 'string', 'link href');
      }
      break;
    case 'jwks':
      // RFC 7517 §5: keys, each with kty; RFC 7518 §6.3.1: RSA keys carry n and e.
      t.ok(Array.isArray(doc.keys) && doc.keys.length > 0, 'keys');
      for (const key of doc.keys as Doc[]) {
        t.type(key.kty, 'string', 'kty');
        if (key.kty === 'RSA') {
          t.match(key.n, /^[A-Za-z0-9_-]+$/, 'n is base64url');
          t.match(key.e, /^[A-Za-z0-9_-]+$/, 'e is base64url');
        }
        if (key.key_ops !== undefined) t.ok(isStringArray(key.key_ops), 'key_ops');
      }
      break;
    case 'host-meta':
      // RFC 6415 Appendix A (JRD): links with rel and href or template.
      t.ok(Array.isArray(doc.links) && doc.links.length > 0, 'links');
      for (const link of doc.links as Doc[]) {
        t.type(link.rel, 'string', 'link rel');
        t.ok(typeof link.href === 'string' || typeof link.template === 'string', 'href or template');
      }
      break;
    case 'agent-card':
      // A2A 0.3 AgentCard required members.
      strings(['protocolVersion', 'name', 'description', 'url', 'version']);
      t.ok(doc.capabilities && typeof doc.capabilities === 'object' && !Array.isArray(doc.capabilities), 'capabilities object');
      stringArrays(['defaultInputModes', 'defaultOutputModes']);
      t.ok(Array.isArray(doc.skills), 'skills array');
      for (const skill of doc.skills as Doc[]) {
        for (const name of ['id', 'name', 'description']) t.type(skill[name], 'string', `skill ${name}`);
        t.ok(isStringArray(skill.tags), 'skill tags');
      }
      break;
  }
}
