// The bots host's endpoints: chaotic crawler, app-linking, federated-identity
// and site-trust files, one folder per category, each listing its files once
// (<category>/index.ts); each file is the twin of a well-formed control file at
// the same path, and the control host mirrors these folders (README: Crawler,
// app-linking and federated files). The host's list is their concatenation in
// CATEGORIES order.
import type { HttpEndpoint } from '../../../shared/http/http-service.js';
import { CATEGORIES, type Category } from '../../../shared/registry/registry.js';
import appLinking from './app-linking/index.js';
import crawlerFiles from './crawler-files/index.js';
import federatedIdentity from './federated-identity/index.js';
import siteTrust from './site-trust/index.js';

/** Each category's folder; the type makes every category of CATEGORIES.bots have one. */
const folders: { readonly [C in Category<'bots'>]: readonly HttpEndpoint[] } = {
  'crawler-files': crawlerFiles,
  'app-linking': appLinking,
  'federated-identity': federatedIdentity,
  'site-trust': siteTrust,
};

export const botsEndpoints: readonly HttpEndpoint[] = CATEGORIES.bots.flatMap((category) => folders[category]);
