/** Small misbehaving HTTP servers on 127.0.0.1 for client tests. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface TestServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startTestServer(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export function sseHeaders(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

export const chunk = (text: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'x', object: 'text_completion', choices: [{ index: 0, text, finish_reason: finish }] })}\n\n`;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
