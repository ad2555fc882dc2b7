// Reads the server name from a TLS ClientHello before any TLS socket exists,
// so the mode's own context is the socket's first one: node's SNI switch keeps
// the first context's protocol versions and security level, which the weak
// modes (rsa1024, rsa512, tls1-0, tls1-1) must set themselves. Bounded: a
// hello longer than MAX_HELLO_BYTES, or anything that is not a handshake
// record, is refused.

/** The longest ClientHello we read (handshake bytes; a 64 KiB server name is past it). */
export const MAX_HELLO_BYTES = 32 * 1024;

export type HelloRead =
  | { readonly state: 'more' }
  | { readonly state: 'refused'; readonly reason: string }
  | { readonly state: 'hello'; readonly servername: string | undefined };

/** What the bytes received so far say: wait for more, refuse, or the hello's server name (undefined: none sent). */
export function readClientHello(bytes: Buffer): HelloRead {
  // Concatenate the handshake records' fragments until the hello message is whole.
  const fragments: Buffer[] = [];
  let at = 0;
  let have = 0;
  let wanted: number | undefined;
  while (wanted === undefined || have < wanted) {
    if (bytes.length < at + 5) return more(bytes);
    if (bytes[at] !== 0x16) return { state: 'refused', reason: 'not a TLS handshake record' };
    if (bytes[at + 1] !== 0x03) return { state: 'refused', reason: 'not a TLS record version' };
    const length = bytes.readUInt16BE(at + 3);
    if (length === 0 || length > 16_384 + 2048) return { state: 'refused', reason: 'a record of impossible length' };
    // The hello's own header, as soon as it is here: a type or length out of bounds is refused without waiting for the rest.
    if (wanted === undefined && have === 0 && bytes.length >= at + 9) {
      const refusal = helloHeaderRefusal(bytes.subarray(at + 5, at + 9));
      if (refusal !== undefined) return refusal;
    }
    if (bytes.length < at + 5 + length) return more(bytes);
    fragments.push(bytes.subarray(at + 5, at + 5 + length));
    have += length;
    at += 5 + length;
    if (wanted === undefined && have >= 4) {
      const head = Buffer.concat(fragments);
      const refusal = helloHeaderRefusal(head);
      if (refusal !== undefined) return refusal;
      wanted = helloLength(head);
    }
  }
  return serverNameOf(Buffer.concat(fragments).subarray(4, wanted));
}

/** The whole hello message's length, its 4-byte header included. */
function helloLength(head: Buffer): number {
  return 4 + ((head[1] as number) << 16) + ((head[2] as number) << 8) + (head[3] as number);
}

function helloHeaderRefusal(head: Buffer): HelloRead | undefined {
  if (head[0] !== 0x01) return { state: 'refused', reason: 'the first handshake message is not a ClientHello' };
  if (helloLength(head) > MAX_HELLO_BYTES) return { state: 'refused', reason: 'a ClientHello over the bound' };
  return undefined;
}

function more(bytes: Buffer): HelloRead {
  return bytes.length > MAX_HELLO_BYTES + 1024 ? { state: 'refused', reason: 'a ClientHello over the bound' } : { state: 'more' };
}

const MALFORMED: HelloRead = { state: 'refused', reason: 'a malformed ClientHello' };

/** The server_name extension's host name (RFC 6066 §3) of a ClientHello body. */
function serverNameOf(hello: Buffer): HelloRead {
  let at = 2 + 32; // legacy_version, random
  if (hello.length < at + 1) return MALFORMED;
  at += 1 + (hello[at] as number); // session id
  if (hello.length < at + 2) return MALFORMED;
  at += 2 + hello.readUInt16BE(at); // cipher suites
  if (hello.length < at + 1) return MALFORMED;
  at += 1 + (hello[at] as number); // compression methods
  if (hello.length === at) return { state: 'hello', servername: undefined }; // no extensions
  if (hello.length < at + 2) return MALFORMED;
  const end = at + 2 + hello.readUInt16BE(at);
  if (end > hello.length) return MALFORMED;
  at += 2;
  while (at + 4 <= end) {
    const type = hello.readUInt16BE(at);
    const length = hello.readUInt16BE(at + 2);
    at += 4;
    if (at + length > end) return MALFORMED;
    if (type === 0x0000) {
      // server_name_list: one host_name entry is all TLS allows in practice.
      if (length < 5 || hello[at + 2] !== 0x00) return MALFORMED;
      const nameLength = hello.readUInt16BE(at + 3);
      if (5 + nameLength > length) return MALFORMED;
      return { state: 'hello', servername: hello.toString('latin1', at + 5, at + 5 + nameLength) };
    }
    at += length;
  }
  return { state: 'hello', servername: undefined };
}
