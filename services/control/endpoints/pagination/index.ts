// The control host's pagination folder: its endpoints, listed once, in catalog order (twins mirror services/chaos/endpoints/pagination/).
import type { HttpEndpoint } from '../../../../shared/http/http-service.js';
import pagination from './pagination.js';
import paginationLink from './pagination-link.js';

const endpoints: readonly HttpEndpoint[] = [pagination, paginationLink];
export default endpoints;
