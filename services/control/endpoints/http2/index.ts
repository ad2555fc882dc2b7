// The control host's http2 folder: the node:http2 twins of the chaos /h2/*
// lies are not built yet (issue 28, item 4), so the chaos lies declare no twin.
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';

const endpoints: readonly HttpEndpoint[] = [];
export default endpoints;
