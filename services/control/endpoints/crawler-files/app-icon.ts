import { defineHttpEndpoint } from '../../../../shared/http-service.js';
import { oneOf } from '../../../../shared/params.js';
import { FILE_PATHS, ICON_SIZES, ICONS } from './documents.js';

export default defineHttpEndpoint({
  id: 'app-icon',
  path: FILE_PATHS.icon,
  category: 'crawler-files',
  summary: "The manifest's icon: a real square PNG of `size` pixels, generated at start-up",
  params: { size: oneOf(ICON_SIZES, { default: '512', description: 'edge in pixels' }) },
  counterpartHost: 'bots',
  handle(ctx, { size }) {
    ctx.send(200, 'image/png', ICONS[size]);
  },
});
