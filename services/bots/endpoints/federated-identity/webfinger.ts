import { FILE_PATHS, perConfigDaily, prettyJson, type Site } from '../../../../shared/content/crawler-files/index.js';
import { WEBFINGER_PARAMS, webfingerAccount, NODEINFO_20_REL } from '../../../../shared/content/federated-identity.js';
import { defineBotsEndpoint } from '../../../../shared/http/http-service.js';
import { oneOf, str } from '../../../../shared/primitives/params.js';
import { FILE_HEADERS, HTML, JSON_TYPE, modeNames, reply, sendFile, twinQueryParams } from '../file.js';

const JRD = 'application/jrd+json';

const LIES = {
  'subject-mismatch': 'subject names another account than the resource asked for',
  'answers-any-resource': 'answers 200 for any resource on any host, echoing it as subject (RFC 7033: 404 for unknown ones)',
  'cross-host-links': 'the profile and nodeinfo links point at the control host',
  'wrong-content-type': 'a valid JRD labelled text/html',
  'invalid-json': 'the JRD cut short before its closing brackets',
} as const;
const MODES = modeNames(LIES);
/** resource and rel: the counterpart asks the control twin the same question. */
const TWIN_PARAMS = twinQueryParams(WEBFINGER_PARAMS);

function jrd(subject: string, site: Site, linkBase: string): Record<string, unknown> {
  return {
    subject,
    aliases: [`${site.bots}/`],
    links: [
      { rel: 'http://webfinger.net/rel/profile-page', type: 'text/plain', href: `${linkBase}${FILE_PATHS.humans}` },
      { rel: NODEINFO_20_REL, href: `${linkBase}${FILE_PATHS.nodeinfo20}` },
    ],
  };
}

const known = perConfigDaily((site) => {
  const account = webfingerAccount('bots', site.botsHostname);
  const valid = jrd(account, site, site.bots);
  return {
    account,
    resources: new Set([account, `${site.bots}/`, site.bots]),
    site,
    replies: {
      'subject-mismatch': reply(JRD, prettyJson(jrd(webfingerAccount('someone-else', site.botsHostname), site, site.bots))),
      'cross-host-links': reply(JRD, prettyJson(jrd(account, site, site.control))),
      'wrong-content-type': reply(HTML, prettyJson(valid)),
      'invalid-json': reply(JRD, prettyJson(valid).slice(0, -6)),
    },
  };
});

export default defineBotsEndpoint({
  id: 'webfinger',
  path: '/.well-known/webfinger',
  category: 'federated-identity',
  summary: 'WebFinger for acct:bots@<this host> that misleads: another subject, answers for anyone, links to another host, an HTML label, a cut JRD; unknown resources 404',
  params: {
    resource: str({ required: true, minLength: 1, maxLength: 512, description: 'the URI asked about (RFC 7033: missing → 400)' }),
    mode: oneOf(MODES, { default: MODES[0], description: 'which documented lie to tell', aliases: { 'malformed-json': 'invalid-json' } }),
  },
  headers: [...FILE_HEADERS],
  docs: {
    // The account this host knows (any other resource is an honest 404).
    example: (config) => ({ target: `/.well-known/webfinger?resource=${encodeURIComponent(webfingerAccount('bots', new URL(config.urls.bots).hostname))}` }),
  },
  handle(ctx, { resource, mode }) {
    const k = known(ctx.config);
    if (mode === 'answers-any-resource') {
      sendFile(ctx, 'webfinger', mode, LIES[mode], reply(JRD, prettyJson(jrd(resource, k.site, k.site.bots))), undefined, TWIN_PARAMS);
    } else if (!k.resources.has(resource)) {
      // The honest part of the lie: an unknown resource is a 404 here.
      const notFound = reply(JSON_TYPE, prettyJson({ error: 'unknown_resource', resource }), 404);
      sendFile(ctx, 'webfinger', mode, 'none: an unknown resource gets an honest 404', notFound, undefined, TWIN_PARAMS);
    } else {
      sendFile(ctx, 'webfinger', mode, LIES[mode], k.replies[mode], undefined, TWIN_PARAMS);
    }
  },
});
