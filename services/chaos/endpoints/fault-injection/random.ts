import { addChaosHeaders, type HeaderList } from '../../../../shared/headers.js';
import { str } from '../../../../shared/params.js';
import { pickFor, randomPool } from '../../../../shared/random-pick.js';
import { freshSeed } from '../../../../shared/seed.js';
import { defineChaosEndpoint } from '../../endpoint.js';
import type { Wire } from '../../wire.js';

export default defineChaosEndpoint({
  id: 'random',
  path: '/random',
  category: 'fault-injection',
  summary: "Picks one chaos endpoint (never /slow, /drip, /partial-stream or /bytes, which stall or hold the connection) and returns its response; `seed` decides the pick and is forwarded to it",
  params: {
    seed: str({ maxLength: 256, description: 'decides the pick and is forwarded as its seed; omitted: a fresh seed, reported' }),
  },
  headers: ['X-Chaos-Random-From', 'X-Chaos-Random-Seed', 'X-Chaos-Random-Target'],
  handle(ctx, { seed }) {
    const used = seed ?? freshSeed();
    const pick = pickFor(randomPool(ctx.registry), used);
    appendToHead(
      ctx.wire,
      addChaosHeaders([], { 'Random-From': pick.path, 'Random-Seed': encodeURIComponent(used), 'Random-Target': pick.target }),
    );
    // The picked endpoint answers as itself: its own X-Chaos-Category and X-Chaos-Endpoint.
    return pick.endpoint.handle({ ...ctx, endpoint: pick.endpoint, clamped: [] }, pick.values);
  },
});

/**
 * Adds header lines to whatever head the picked endpoint writes, however it
 * writes it (Wire.head goes through rawHead): before the blank line that ends
 * the head (the final head when an interim 1xx precedes it), else after the
 * status line. This wire serves this one response only.
 */
function appendToHead(wire: Wire, lines: HeaderList): void {
  const rawHead = wire.rawHead.bind(wire);
  const crlf = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  wire.rawHead = (text: string): void => {
    if (text.endsWith('\r\n\r\n')) rawHead(`${text.slice(0, -2)}${crlf}\r\n`);
    else if (text.endsWith('\n\n')) rawHead(`${text.slice(0, -1)}${crlf.replace(/\r\n/g, '\n')}\n`);
    else {
      const eol = text.indexOf('\n');
      rawHead(eol === -1 ? text : `${text.slice(0, eol + 1)}${crlf}${text.slice(eol + 1)}`);
    }
  };
}
