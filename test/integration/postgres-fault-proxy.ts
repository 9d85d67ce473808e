/**
 * A TCP proxy in front of Postgres for tests of a stalled or restarting warehouse: it reads the
 * frontend's messages as they pass (startup, then type byte + length) and, for a simple query
 * `stall` picks (a COPY), forwards the query and then nothing more from that connection: the
 * server waits for COPY data that never arrives, the loader for an answer that never comes, as
 * behind a hung NAT or a frozen network path. The server's answers always pass. Closing either
 * side closes the other, as a real proxy does.
 *
 * `restart` plays a server restart for the clients behind the proxy: the server terminates their
 * sessions (pg_terminate_backend: FATAL 57P01, as a fast shutdown does), and for `downMs` every new
 * connection is answered FATAL 57P03 "the database system is starting up", as a starting server
 * answers; then connections pass again. Clients that reach the server directly are untouched.
 */
import net from "node:net";
import pg from "pg";

/** A running proxy: `url` is the database URL through it; `stalled` counts the statements held. */
export interface PostgresFaultProxy {
  readonly url: string;
  readonly stalled: number;
  /** Statements (first 60 characters) held so far, in order. */
  readonly stalledStatements: readonly string[];
  /** Connections refused while the server was "restarting". */
  readonly refused: number;
  /** Ends every session through the proxy and refuses new ones for `downMs`; resolves when they pass again. */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
}

/** The ErrorResponse a server sends before closing: FATAL with SQLSTATE `code` and `message`. */
function fatalMessage(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, "utf8");
  const header = Buffer.alloc(5);
  header.write("E", 0, "ascii");
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/** Answers a connection as a starting server does: no SSL, then FATAL 57P03 to its startup message. */
function refuseAsStarting(client: net.Socket): void {
  client.on("error", () => {});
  client.on("data", (chunk: Buffer) => {
    const isSslRequest = chunk.length >= 8 && chunk.readInt32BE(0) === 8 && chunk.readInt32BE(4) === 80877103;
    if (isSslRequest) client.write("N");
    else client.end(fatalMessage("57P03", "the database system is starting up"));
  });
}

/** Decides, for each simple query (its SQL text), whether to stall its connection from there on. */
export type StallRule = (sql: string) => boolean;

/** Starts a proxy to the server of `databaseUrl` on a free port of 127.0.0.1. */
export async function startPostgresFaultProxy(
  databaseUrl: string,
  stall: StallRule = () => false,
): Promise<PostgresFaultProxy> {
  const target = new URL(databaseUrl);
  const stalledStatements: string[] = [];
  const sockets = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  let downUntil = 0;
  let refused = 0;
  const server = net.createServer((client) => {
    if (Date.now() < downUntil) {
      refused++;
      refuseAsStarting(client);
      return;
    }
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client);
    sockets.add(upstream);
    upstreams.add(upstream);
    upstream.on("close", () => upstreams.delete(upstream));
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
    get refused() {
      return refused;
    },
    async restart(downMs: number) {
      downUntil = Date.now() + downMs;
      const ports = [...upstreams].map((socket) => socket.localPort).filter((p) => p !== undefined);
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND pid <> pg_backend_pid()",
          [ports],
        );
      } finally {
        await admin.end();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, downUntil - Date.now())));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
