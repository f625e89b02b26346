import { createServer } from 'node:http';
import { announceListening } from './server-process.js';

/**
 * The operator's webhook at its cheapest, for a bench's child process: read the body, answer
 * `{"response":"ok"}` at once, keep connections alive.
 */
export async function serveWebhook(): Promise<void> {
  const reply = JSON.stringify({ response: 'ok' });
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
  announceListening(typeof address === 'object' && address !== null ? address.port : 0, async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  });
}
