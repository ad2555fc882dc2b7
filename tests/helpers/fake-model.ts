// A chat-completions server that answers nonsense, for the AI budget tests:
// a granted call shows as `invalid-json`, a refused one never reaches it, and
// the calls are counted.
import http from 'node:http';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function startFakeModel(t: Teardown): Promise<{ readonly baseUrl: string; calls(): number }> {
  let calls = 0;
  const model = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'not a document' } }] }));
    });
  });
  await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => model.close(resolve)));
  return { baseUrl: `http://127.0.0.1:${(model.address() as { port: number }).port}/v1`, calls: () => calls };
}
