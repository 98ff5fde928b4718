// A TCP proxy in front of the test server that cuts the link at a chosen
// HTTP request (every request is its own connection: the device's client
// sends `Connection: close`), in one of three places:
//   before   the request never reaches the server;
//   after    the server got the whole request and answered, the client gets
//            nothing (the server applied it; the device does not know);
//   middle   the client gets half of the reply, then the connection drops.

import net from "node:net";

export type CutAt = "before" | "after" | "middle";

export interface Proxy {
  port: number;
  requests: number; // connections seen
  bytesUp: number;
  bytesDown: number;
  cuts: Map<number, CutAt>;
  close(): Promise<void>;
}

export async function startProxy(target: () => number): Promise<Proxy> {
  const p: Proxy = { port: 0, requests: 0, bytesUp: 0, bytesDown: 0, cuts: new Map(), close: async () => undefined };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => undefined);
    const index = p.requests++;
    const cut = p.cuts.get(index);
    if (cut === "before") {
      client.destroy();
      return;
    }
    const upstream = net.connect({ host: "127.0.0.1", port: target() });
    sockets.add(upstream);
    upstream.on("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    client.on("data", (d) => {
      p.bytesUp += d.length;
      upstream.write(d);
    });
    let down = 0;
    const reply: Buffer[] = [];
    upstream.on("data", (d: Buffer) => {
      if (cut === "after") {
        // swallow the reply: the server has done the work
        reply.push(d);
        return;
      }
      if (cut === "middle") {
        reply.push(d);
        return;
      }
      down += d.length;
      p.bytesDown += d.length;
      client.write(d);
    });
    upstream.on("end", () => {
      if (cut === "after") client.destroy();
      else if (cut === "middle") {
        const all = Buffer.concat(reply);
        const half = all.subarray(0, Math.max(1, Math.floor(all.length / 2)));
        p.bytesDown += half.length;
        client.write(half, () => client.destroy());
      } else client.end();
    });
    void down;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  p.port = (server.address() as net.AddressInfo).port;
  p.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return p;
}
