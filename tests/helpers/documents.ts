// Checkers for the crawler and federated documents, shared by the control
// and bots file tests: each returns the problems it finds (empty = valid), so a
// test can assert both that a control file passes and that a chaotic one fails
// for exactly its documented reason.
import { crc32, inflateSync } from 'node:zlib';

export function isCalendarDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** Well-formedness, enough for these documents: balanced tags, only the five entities, one root. */
export function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  let roots = 0;
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const tokens = body.split(/(<[^>]*>)/);
  for (const token of tokens) {
    if (token.startsWith('<')) {
      const m = /^<(\/?)([A-Za-z_][\w.-]*)[^>]*?(\/?)>$/.exec(token);
      if (!m) {
        problems.push(`bad tag ${token}`);
        continue;
      }
      const [, close, name, selfClose] = m;
      if (close) {
        const open = stack.pop();
        if (open !== name) problems.push(`</${name}> closes <${open}>`);
      } else if (!selfClose) {
        if (stack.length === 0) roots++;
        stack.push(name as string);
      }
    } else {
      if (/&(?!(amp|lt|gt|quot|apos);)/.test(token)) problems.push(`bare & in ${JSON.stringify(token)}`);
      if (stack.length === 0 && token.trim() !== '') problems.push('text outside the root');
    }
  }
  if (stack.length > 0) problems.push(`unclosed ${stack.join(', ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

/** NodeInfo 2.0 (the published schema), checked by hand. */
export function nodeinfo20Problems(doc: unknown): string[] {
  const p: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const isCount = (v: unknown) => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
  const only = (o: Record<string, unknown>, keys: string[], where: string) => {
    for (const k of Object.keys(o)) if (!keys.includes(k)) p.push(`${where}: unexpected ${k}`);
  };
  if (!isObject(doc)) return ['not an object'];
  const required = ['version', 'software', 'protocols', 'services', 'openRegistrations', 'usage', 'metadata'];
  for (const k of required) if (!(k in doc)) p.push(`missing ${k}`);
  only(doc, required, 'root');
  if (doc.version !== '2.0') p.push('version must be 2.0');
  const sw = doc.software;
  if (!isObject(sw) || typeof sw.name !== 'string' || !/^[a-z0-9-]+$/.test(sw.name) || typeof sw.version !== 'string') p.push('software');
  else only(sw, ['name', 'version'], 'software');
  const protocols = ['activitypub', 'buddycloud', 'dfrn', 'diaspora', 'libertree', 'ostatus', 'pumpio', 'tent', 'xmpp', 'zot'];
  if (!Array.isArray(doc.protocols) || doc.protocols.length < 1 || doc.protocols.some((x) => !protocols.includes(x as string))) p.push('protocols');
  const services = doc.services;
  if (!isObject(services) || !Array.isArray(services.inbound) || !Array.isArray(services.outbound)) p.push('services');
  if (typeof doc.openRegistrations !== 'boolean') p.push('openRegistrations');
  const usage = doc.usage;
  if (!isObject(usage) || !isObject(usage.users)) p.push('usage');
  else {
    only(usage, ['users', 'localPosts', 'localComments'], 'usage');
    only(usage.users, ['total', 'activeHalfyear', 'activeMonth'], 'usage.users');
    for (const v of [usage.users.total, usage.users.activeHalfyear, usage.users.activeMonth, usage.localPosts, usage.localComments]) {
      if (!isCount(v)) p.push(`usage count ${String(v)}`);
    }
  }
  if (!isObject(doc.metadata)) p.push('metadata');
  return p;
}

/** PNG structure: signature, chunk CRCs, IHDR, an IDAT that inflates to the image size, IEND last. */
export function pngProblems(png: Buffer): { problems: string[]; width: number; height: number } {
  const problems: string[] = [];
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { problems: ['no PNG signature'], width: 0, height: 0 };
  let at = 8;
  const types: string[] = [];
  const idat: Buffer[] = [];
  let width = 0;
  let height = 0;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (at + 12 + length > png.length) {
      problems.push(`${type} runs past the end`);
      break;
    }
    const data = png.subarray(at + 8, at + 8 + length);
    if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) problems.push(`${type} CRC`);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    }
    if (type === 'IDAT') idat.push(data);
    types.push(type);
    at += 12 + length;
  }
  if (types[0] !== 'IHDR' || types[types.length - 1] !== 'IEND') problems.push(`chunks ${types.join(',')}`);
  if (problems.length === 0) {
    try {
      if (inflateSync(Buffer.concat(idat)).length !== height * (1 + 3 * width)) problems.push('IDAT size');
    } catch {
      problems.push('IDAT does not inflate');
    }
  }
  return { problems, width, height };
}

/** RFC 9116 checks that need no network: Expires once, in the future, under a year; Canonical; signature claims. */
export function securityTxtProblems(text: string, servedUrl: string, nowMs: number = Date.now()): string[] {
  const problems: string[] = [];
  if (text.includes('-----BEGIN PGP SIGNED MESSAGE-----') && !text.includes('-----BEGIN PGP SIGNATURE-----')) problems.push('signature claimed but missing');
  const field = (name: string) =>
    text
      .split('\n')
      .filter((line) => line.toLowerCase().startsWith(`${name}:`))
      .map((line) => line.slice(name.length + 1).trim());
  const expires = field('expires');
  if (expires.length === 0) problems.push('no Expires');
  if (expires.length > 1) problems.push('more than one Expires');
  for (const value of expires) {
    const at = Date.parse(value);
    if (Number.isNaN(at)) problems.push('Expires is not a date');
    else if (at <= nowMs) problems.push('expired');
    else if (at > nowMs + 365 * 86_400_000) problems.push('Expires more than a year ahead');
  }
  if (field('contact').length === 0) problems.push('no Contact');
  const canonical = field('canonical');
  if (canonical.length > 0 && !canonical.includes(servedUrl)) problems.push('Canonical does not name the served URL');
  return problems;
}

export interface AdsRecord {
  readonly domain: string;
  readonly account: string;
  readonly relationship: string;
}

/** ads.txt records (IAB 1.1): 3 or 4 comma-separated fields, DIRECT or RESELLER; the rest are malformed. */
export function adsRecords(text: string): { valid: AdsRecord[]; malformed: string[] } {
  const valid: AdsRecord[] = [];
  const malformed: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '' || /^[A-Za-z]+=/.test(line)) continue;
    const fields = line.split(',').map((f) => f.trim());
    const [domain = '', account = '', relationship = ''] = fields;
    if ((fields.length === 3 || fields.length === 4) && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(domain) && account !== '' && /^(DIRECT|RESELLER)$/i.test(relationship)) {
      valid.push({ domain, account, relationship: relationship.toUpperCase() });
    } else {
      malformed.push(raw);
    }
  }
  return { valid, malformed };
}
