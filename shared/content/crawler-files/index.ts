// Twin content, crawler-files family: documents.ts holds robots.txt, ai.txt,
// llms.txt, sitemap.xml and the control files encoded once a day; site.ts the
// site model (URLs, paths, identities, the day) that the app-linking,
// federated-identity and site-trust modules build on too. This index is what
// the endpoints import.
export * from './documents.js';
export * from './site.js';
