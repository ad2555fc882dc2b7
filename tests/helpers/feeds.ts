// Ways to cut the same input into pushes: whole, byte by byte, and uneven
// pieces, so that every split point (inside CRLFs, chunk lines, bodies) is met.
export const FEEDS = {
  whole: (b: Buffer): Buffer[] => [b],
  'byte by byte': (b: Buffer): Buffer[] => Array.from(b, (_, i) => b.subarray(i, i + 1)),
  // Uneven pieces (1, 2, 3, ... bytes): splits land inside CRLFs, chunk lines and bodies.
  pieces: (b: Buffer): Buffer[] => {
    const out: Buffer[] = [];
    for (let at = 0, n = 1; at < b.length; at += n, n = (n % 7) + 1) out.push(b.subarray(at, at + n));
    return out;
  },
};
