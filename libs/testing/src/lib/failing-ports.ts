import { type AddressInfo, type Server, createServer } from 'node:net';

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

/**
 * Two loopback ports whose connections fail asynchronously: `closedPort` refuses (ECONNREFUSED;
 * nothing listens there), `resetPort` accepts and resets at once (ECONNRESET).
 */
export async function failingPorts(): Promise<{
  closedPort: number;
  resetPort: number;
  close(): Promise<void>;
}> {
  const probe = createServer();
  const closedPort = await listen(probe);
  await new Promise((r) => probe.close(r));
  const reset = createServer((socket) => socket.resetAndDestroy());
  const resetPort = await listen(reset);
  return { closedPort, resetPort, close: () => new Promise<void>((r) => reset.close(() => r())) };
}
