import { defineControlEndpoint } from '../../../../shared/http/http-service.js';
import { FILE_PATHS } from '../../../../shared/content/crawler-files/index.js';
import { ICON_PARAMS, ICONS } from '../../../../shared/content/app-linking.js';

export default defineControlEndpoint({
  id: 'app-icon',
  path: FILE_PATHS.icon,
  category: 'crawler-files',
  summary: "The manifest's icon: a real square PNG of `size` pixels, generated at start-up",
  params: ICON_PARAMS,
  counterpart: { host: 'bots' },
  docs: {
    modeParam: 'size',
  },
  handle(ctx, { size }) {
    ctx.send(200, 'image/png', ICONS[size]);
  },
});
