// Twin content, app-linking family: apple-app-site-association, assetlinks.json,
// the web app manifest and its icon, well-formed as the control host serves
// them; the bots host builds its chaotic twins from the same pieces.
// The icon is a real PNG generated at start-up by a minimal encoder (8-bit
// RGB, no interlace) rather than a file on disk.
import { deflateSync } from 'node:zlib';
import { oneOf } from '../primitives/params.js';
import { seededBytes } from '../primitives/seed.js';
import { DISALLOWED_PREFIX, FILE_PATHS, HOST_IDENTITY, type FileHost, type Site } from './crawler-files/site.js';

/** The app the app-linking files associate with (example.com's reverse DNS: owned by nobody). */
export const APPLE_TEAM_ID = 'CHAOSTEAM1';
export const APP_BUNDLE_ID = 'com.example.chaos';
export const APPLE_APP_ID = `${APPLE_TEAM_ID}.${APP_BUNDLE_ID}`;
export const ANDROID_PACKAGE = 'com.example.chaos';

/** Colon-separated upper-case hex, as Digital Asset Links writes certificate fingerprints. */
export function colonHex(bytes: Buffer): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
}
/** SHA-256 fingerprint of the (fictional) signing certificate: 32 seeded bytes. */
export const CERT_FINGERPRINT = colonHex(seededBytes(`assetlinks:${ANDROID_PACKAGE}`, 32));


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

/** Icon sizes the manifest declares (Chromium's install criteria name 192 and 512). */
export const ICON_SIZES = ['192', '512'] as const;
export type IconSize = (typeof ICON_SIZES)[number];
export const ICONS: Readonly<Record<IconSize, Buffer>> = { 192: iconPng(192), 512: iconPng(512) };
/** The control icon's parameters; the bots twin's counterpart link keeps them. */
export const ICON_PARAMS = { size: oneOf(ICON_SIZES, { default: '512', description: 'edge in pixels' }) };

export function appleAppSiteAssociation(): Record<string, unknown> {
  return {
    applinks: {
      details: [
        {
          appIDs: [APPLE_APP_ID],
          components: [
            { '/': '/', comment: 'the catalog' },
            { '/': `${DISALLOWED_PREFIX}*`, comment: 'generated pages open in the app' },
          ],
        },
      ],
    },
    webcredentials: { apps: [APPLE_APP_ID] },
  };
}

export const HANDLE_ALL_URLS = 'delegate_permission/common.handle_all_urls';
export function assetLinks(): Record<string, unknown>[] {
  return [
    {
      relation: [HANDLE_ALL_URLS],
      target: { namespace: 'android_app', package_name: ANDROID_PACKAGE, sha256_cert_fingerprints: [CERT_FINGERPRINT] },
    },
  ];
}

export function iconEntries(base: string): Record<string, string>[] {
  return ICON_SIZES.map((size) => ({ src: `${base}${FILE_PATHS.icon}?size=${size}`, sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' }));
}

/**
 * The host's web app manifest. The icons are always the control host's: the
 * bots host's own icon.png is chaotic in every mode, so a bots manifest that
 * pointed at it would tell a second lie.
 */
export function webManifest(site: Site, host: FileHost): Record<string, unknown> {
  const me = HOST_IDENTITY[host];
  const root = `${site[host]}/`;
  return {
    id: root,
    name: me.name,
    short_name: me.shortName,
    description: me.description,
    start_url: root,
    scope: root,
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#0b3d91',
    lang: 'en',
    icons: iconEntries(site.control),
  };
}
