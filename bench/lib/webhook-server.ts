import { createServer } from 'node:http';
import { announceListening } from './server-process.js';

/**
 * The operator's webhook at its cheapest: read the body, answer `{"response": <answer>}` at once,
 * keep connections alive. Nothing is recorded (test/support/http-receiver.ts records every call,
 * which a bench's load would pay for).
 */
export async function startOkWebhook(answer = 'ok'): Promise<{ url: string; close: () => Promise<void> }> {
  const reply = JSON.stringify({ response: answer });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/** `startOkWebhook` as a bench's child process (spawnServer), answering `ok`. */
export async function serveWebhook(): Promise<void> {
  const webhook = await startOkWebhook();
  announceListening(Number(new URL(webhook.url).port), webhook.close);
}
