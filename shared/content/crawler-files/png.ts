// Content shared by the control crawler files and their bots twins.
// A minimal PNG encoder (8-bit RGB, no interlace) for the manifest icons, so
// they are real images generated at start-up rather than files on disk.
import { deflateSync } from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309), as PNG chunks carry it. */
export function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** Encodes a width × height image; `paint(x, y)` returns 0xRRGGBB. */
export function encodePng(width: number, height: number, paint: (x: number, y: number) => number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: truecolour
  // compression, filter and interlace methods stay 0
  const stride = 1 + width * 3;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    // each scanline starts with filter type 0 (none), already zero
    for (let x = 0; x < width; x++) {
      const rgb = paint(x, y);
      const at = y * stride + 1 + x * 3;
      raw[at] = (rgb >>> 16) & 0xff;
      raw[at + 1] = (rgb >>> 8) & 0xff;
      raw[at + 2] = rgb & 0xff;
    }
  }
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** The service's icon: a navy square with an amber square in the middle. */
export function iconPng(size: number): Buffer {
  const lo = Math.floor(size / 4);
  const hi = size - lo;
  return encodePng(size, size, (x, y) => (x >= lo && x < hi && y >= lo && y < hi ? 0xffb000 : 0x0b3d91));
}
