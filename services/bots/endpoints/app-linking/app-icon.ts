import { ICON_PARAMS, ICON_SIZES, ICONS, iconPng } from '../../../../shared/content/app-linking.js';
import { defineBotsEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf } from '../../../../shared/primitives/params.js';
import { FILE_HEADERS, modeNames, reply, sendFile, twinQueryParams, type FileReply } from '../file.js';

export const WRONG_SIZE = 16;
const TINY = iconPng(WRONG_SIZE);

const LIES = {
  'wrong-size': `a ${WRONG_SIZE}x${WRONG_SIZE} PNG whatever size was asked`,
  truncated: 'the first half of the PNG (no IEND), with a Content-Length that matches the half',
  'not-png': 'an HTML page labelled image/png',
  'wrong-content-type': 'a valid PNG of the asked size labelled image/jpeg',
} as const;
const MODES = modeNames(LIES);
/** size: following the counterpart gives the icon of the size asked. */
const TWIN_PARAMS = twinQueryParams(ICON_PARAMS);

/** Every reply, per size, built once at start-up (no URL in any of them). */
const REPLIES = Object.fromEntries(
  ICON_SIZES.map((size) => {
    const png = ICONS[size];
    const replies: Record<keyof typeof LIES, FileReply> = {
      'wrong-size': reply('image/png', TINY),
      truncated: reply('image/png', png.subarray(0, Math.floor(png.length / 2))),
      'not-png': reply('image/png', '<!doctype html>\n<html lang="en"><head><title>Not found</title></head><body>No icon here.</body></html>\n'),
      'wrong-content-type': reply('image/jpeg', png),
    };
    return [size, replies];
  }),
) as Record<(typeof ICON_SIZES)[number], Record<keyof typeof LIES, FileReply>>;

export default defineBotsEndpoint({
  id: 'app-icon',
  path: '/icon.png',
  category: 'app-linking',
  summary: 'The icon a manifest points at, broken: smaller than asked, cut in half, HTML posing as PNG, or labelled JPEG',
  params: {
    size: oneOf(ICON_SIZES, { default: '512', description: 'edge in pixels that was asked for' }),
    mode: oneOf(MODES, { default: MODES[0], description: 'which documented lie to tell' }),
  },
  headers: [...FILE_HEADERS],
  handle(ctx, { size, mode }) {
    sendFile(ctx, 'icon.png', mode, LIES[mode], REPLIES[size][mode], undefined, TWIN_PARAMS);
  },
});
