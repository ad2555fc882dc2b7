// The control host's headers folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/headers/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import cacheConfused from './cache-confused.js';
import cookies from './cookies.js';
import duplicateHeaders from './duplicate-headers.js';
import etag from './etag.js';
import headerFlood from './header-flood.js';
import hugeHeader from './huge-header.js';
import wrongContentType from './wrong-content-type.js';

const endpoints: readonly HttpEndpoint[] = [
  etag,
  wrongContentType,
  cacheConfused,
  headerFlood,
  duplicateHeaders,
  hugeHeader,
  cookies,
];
export default endpoints;
