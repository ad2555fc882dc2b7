// The chaos host's pagination folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import pagination from './pagination.js';
import paginationLink from './pagination-link.js';

const endpoints: readonly ChaosEndpoint[] = [pagination, paginationLink];
export default endpoints;
