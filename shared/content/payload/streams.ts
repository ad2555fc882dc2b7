// Twin content, payload family (streams and formats): /ndjson, /xml and
// /charset (/sse is in sse.ts). Each chaos mode is the twin's document with one defect, so the
// lie is the only difference; the bytes are built once at start-up.
import { oneOf } from '../../primitives/params.js';

// --- /ndjson: newline-delimited JSON (application/x-ndjson) -----------------

export const NDJSON_MODES = ['broken-line', 'no-final-newline', 'crlf-mixed'] as const;
export type NdjsonMode = (typeof NDJSON_MODES)[number];
export const NDJSON_PARAMS = {
  mode: oneOf(NDJSON_MODES, { default: 'broken-line', description: 'which defect (the twin always sends valid NDJSON)' }),
};
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

const NDJSON_RECORDS = Array.from({ length: 5 }, (_, i) => `{"id":${i + 1},"name":"record-${i + 1}","ok":true}`);

export const NDJSON_VALID = Buffer.from(NDJSON_RECORDS.map((line) => `${line}\n`).join(''));

export function ndjsonChaosBody(mode: NdjsonMode): Buffer {
  switch (mode) {
    case 'broken-line':
      // The third record loses its closing brace: one line is not JSON, the others are.
      return Buffer.from(NDJSON_RECORDS.map((line, i) => `${i === 2 ? line.slice(0, -1) : line}\n`).join(''));
    case 'no-final-newline':
      return NDJSON_VALID.subarray(0, NDJSON_VALID.length - 1);
    case 'crlf-mixed':
      // Records 2 and 4 end in CRLF: a splitter on \r\n sees three lines, one on \n leaves a \r behind.
      return Buffer.from(NDJSON_RECORDS.map((line, i) => `${line}${i % 2 === 1 ? '\r\n' : '\n'}`).join(''));
  }
}

// --- /xml: well-formedness (XML 1.0) ----------------------------------------

export const XML_MODES = ['unclosed-tag', 'undeclared-entity', 'two-roots', 'wrong-encoding'] as const;
export type XmlMode = (typeof XML_MODES)[number];
export const XML_PARAMS = {
  mode: oneOf(XML_MODES, { default: 'unclosed-tag', description: 'which defect (the twin is well-formed)' }),
};
/** No charset parameter: the XML declaration decides the encoding. */
export const XML_CONTENT_TYPE = 'application/xml';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
const xmlItems = (second: string): string => `  <item id="1">Café crème</item>\n${second}  <item id="3">3 &lt; 4 &amp; 5 &gt; 2</item>\n`;
const XML_SECOND = '  <item id="2">naïve façade</item>\n';
const xmlRoot = (items: string): string => `<catalog source="/xml">\n${items}</catalog>\n`;

export const XML_VALID = Buffer.from(XML_DECLARATION + xmlRoot(xmlItems(XML_SECOND)));

export function xmlChaosBody(mode: XmlMode): Buffer {
  switch (mode) {
    case 'unclosed-tag':
      return Buffer.from(XML_DECLARATION + xmlRoot(xmlItems('  <item id="2">naïve façade\n')));
    case 'undeclared-entity':
      // &nbsp; is HTML's; XML predefines only lt, gt, amp, apos and quot (XML 1.0 §4.6).
      return Buffer.from(XML_DECLARATION + xmlRoot(xmlItems('  <item id="2">naïve&nbsp;façade</item>\n')));
    case 'two-roots':
      return Buffer.from(XML_DECLARATION + xmlRoot(xmlItems(XML_SECOND)) + xmlRoot('  <item id="4">second root</item>\n'));
    case 'wrong-encoding':
      // Declared UTF-16, sent as UTF-8 without a BOM (XML 1.0 §4.3.3: a fatal error).
      return Buffer.from(XML_DECLARATION.replace('UTF-8', 'UTF-16') + xmlRoot(xmlItems(XML_SECOND)));
  }
}

// --- /charset: the declared charset against the bytes ------------------------

export const CHARSET_MODES = ['header-mismatch', 'bom-mismatch', 'invalid-utf8'] as const;
export type CharsetMode = (typeof CHARSET_MODES)[number];
export const CHARSET_PARAMS = {
  mode: oneOf(CHARSET_MODES, { default: 'header-mismatch', description: 'which contradiction (the twin declares what it sends)' }),
};

export const CHARSET_TEXT = 'Café crème, naïve façade: 3 € · 日本語\n';
export const CHARSET_VALID_TYPE = 'text/plain; charset=utf-8';
export const CHARSET_VALID = Buffer.from(CHARSET_TEXT, 'utf8');

const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);
/** Each a classic malformation: a lone continuation byte, an overlong '/', a cut 3-byte sequence, 0xFF, a UTF-16 surrogate. */
export const INVALID_UTF8_SEQUENCES: readonly Buffer[] = [
  Buffer.from([0x80]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xe2, 0x82]), Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80]),
];

export function charsetChaos(mode: CharsetMode): { readonly contentType: string; readonly body: Buffer } {
  switch (mode) {
    case 'header-mismatch':
      // UTF-8 bytes labelled Latin-1: "Café" reads as "CafÃ©".
      return { contentType: 'text/plain; charset=iso-8859-1', body: CHARSET_VALID };
    case 'bom-mismatch':
      // The header says UTF-8; the UTF-16LE BOM and the bytes after it say UTF-16LE (a BOM outranks the header in WHATWG decoding).
      return { contentType: CHARSET_VALID_TYPE, body: Buffer.concat([UTF16LE_BOM, Buffer.from(CHARSET_TEXT, 'utf16le')]) };
    case 'invalid-utf8': {
      const [before, after] = CHARSET_TEXT.split(': ') as [string, string];
      return { contentType: CHARSET_VALID_TYPE, body: Buffer.concat([Buffer.from(`${before}: `), ...INVALID_UTF8_SEQUENCES, Buffer.from(after)]) };
    }
  }
}
