/**
 * A TCP proxy in front of Postgres for tests of a stalled warehouse connection: it reads the
 * frontend's messages as they pass (startup, then type byte + length) and, for a simple query
 * `stall` picks (a COPY), forwards the query and then nothing more from that connection: the
 * server waits for COPY data that never arrives, the loader for an answer that never comes, as
 * behind a hung NAT or a frozen network path. The server's answers always pass. Closing either
 * side closes the other, as a real proxy does.
 */
import net from "node:net";

/** A running proxy: `url` is the database URL through it; `stalled` counts the statements held. */
export interface PostgresFaultProxy {
  readonly url: string;
  readonly stalled: number;
  /** Statements (first 60 characters) held so far, in order. */
  readonly stalledStatements: readonly string[];
  close(): Promise<void>;
}

/** Decides, for each simple query (its SQL text), whether to stall its connection from there on. */
export type StallRule = (sql: string) => boolean;

/** Starts a proxy to the server of `databaseUrl` on a free port of 127.0.0.1. */
export async function startPostgresFaultProxy(
  databaseUrl: string,
  stall: StallRule,
): Promise<PostgresFaultProxy> {
  const target = new URL(databaseUrl);
  const stalledStatements: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
    upstream.pipe(client);
    let pending = Buffer.alloc(0);
    let started = false;
    let held = false;
    client.on("data", (chunk: Buffer) => {
      if (held) return;
      pending = Buffer.concat([pending, chunk]);
      // Forward whole messages only, so a stall starts exactly after the chosen query.
      for (;;) {
        const headerLength = started ? 5 : 4;
        if (pending.length < headerLength) return;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        const isQuery = started && message[0] === 0x51; // 'Q'
        const isSslRequest = !started && length === 8 && message.readInt32BE(4) === 80877103;
        if (!isSslRequest) started = true;
        upstream.write(message);
        if (isQuery) {
          const text = message.subarray(5, message.length - 1).toString("utf8");
          if (stall(text)) {
            held = true;
            stalledStatements.push(text.slice(0, 60));
            return;
          }
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    get stalled() {
      return stalledStatements.length;
    },
    stalledStatements,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
