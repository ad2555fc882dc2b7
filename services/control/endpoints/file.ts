// One control file = one definition: its path, its media type and which of the
// prebuilt bodies it serves. Its chaotic twin is on the bots host at the same
// path (X-Chaos-Counterpart), unless `counterpart` names another path there.
import { defineControlEndpoint, type HttpEndpoint } from '../../../shared/http/http-service.js';
import { controlFiles, type ControlFiles } from '../../../shared/content/crawler-files/index.js';

export interface ControlFileDef {
  readonly id: string;
  readonly path: string;
  readonly summary: string;
  readonly type: string;
  readonly body: keyof ControlFiles;
  /** The bots twin's path, when it differs from `path`. */
  readonly counterpart?: string;
  /** Listed in this host's sitemap.xml. */
  readonly sitemap?: boolean;
}

export function controlFile(def: ControlFileDef): HttpEndpoint {
  return defineControlEndpoint({
    id: def.id,
    path: def.path,
    category: 'crawler-files',
    summary: def.summary,
    params: {},
    counterpart: { host: 'bots', path: def.counterpart ?? def.path },
    ...(def.sitemap ? { sitemap: true } : {}),
    handle(ctx) {
      ctx.send(200, def.type, controlFiles(ctx.config)[def.body]);
    },
  });
}
