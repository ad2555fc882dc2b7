// The chaos host's payload folder: its endpoints, listed once, in catalog order.
import type { ChaosEndpoint } from '../../endpoint.js';
import bytes from './bytes.js';
import charset from './charset.js';
import cloudevents from './cloudevents.js';
import compression from './compression.js';
import json from './json.js';
import jsonapi from './jsonapi.js';
import ndjson from './ndjson.js';
import partialStream from './partial-stream.js';
import problemDetails from './problem-details.js';
import range from './range.js';
import sse from './sse.js';
import truncate from './truncate.js';
import xml from './xml.js';

const endpoints: readonly ChaosEndpoint[] = [
  truncate,
  partialStream,
  bytes,
  compression,
  range,
  json,
  cloudevents,
  jsonapi,
  problemDetails,
  sse,
  ndjson,
  xml,
  charset,
];
export default endpoints;
