import { jsonBody } from '../../../../shared/json.js';
import { interimStatusBody, STATUS_CODE, isInterim, protocolSwitchBody, statusBody, switchesProtocols } from '../../../../shared/content/status.js';
import { defineChaosEndpoint, sendComplete } from '../../endpoint.js';
import { canSendInterim, sendStatus } from '../../status-writer.js';

export default defineChaosEndpoint({
  id: 'status',
  path: '/status/{code}',
  category: 'status',
  summary: 'Answers with status `code` and a JSON body naming it; 204/304 without a body; 1xx as an interim head then a final 200; 101 refused with 400',
  example: { target: '/status/418' },
  params: {
    code: STATUS_CODE,
  },
  headers: ['X-Chaos-Status'],
  random: 'seeded',
  handle(ctx, { code }) {
    if (switchesProtocols(code)) {
      // Switching protocols would hand the connection to a protocol nobody asked for.
      sendComplete(ctx, 400, 'application/json', jsonBody(protocolSwitchBody(code)), { Status: 400 });
      return;
    }
    const body = isInterim(code) ? interimStatusBody(code, canSendInterim(ctx)) : statusBody(code);
    // For an interim code X-Chaos-Status names the requested code, not the final 200.
    sendStatus(ctx, code, jsonBody(body), { Status: code });
  },
});
