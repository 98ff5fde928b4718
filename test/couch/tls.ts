// TLS for the tests, made at test time: a test CA (and an unrelated one),
// server certificates signed by it (for 127.0.0.1 and localhost; one expired;
// one for another host name) made with the machine's openssl, and a TLS
// terminator on 127.0.0.1 in front of a plain-HTTP server (pouchdb-server),
// as a fleet's gateway would stand in front of CouchDB.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";

export interface TestPki {
  dir: string;
  caPem: string; // path of the test CA (PEM)
  caDer: ArrayBuffer;
  otherCaDer: ArrayBuffer; // a CA that signed nothing here
  good: { key: string; cert: string }; // PEM texts: 127.0.0.1 and localhost
  expired: { key: string; cert: string };
  wrongHost: { key: string; cert: string }; // for other.example only
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

function der(file: string): ArrayBuffer {
  const text = fs.readFileSync(file, "latin1");
  const b = Buffer.from(text.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""), "base64");
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;
}

export function makePki(): TestPki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "petmem-pki-"));
  const ca = (name: string) => openssl(dir, ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.pem`, "-days", "2", "-subj", `/CN=petmem ${name}`]);
  ca("ca");
  ca("other-ca");
  // `openssl ca` can date a certificate in the past (x509 -req cannot)
  fs.writeFileSync(path.join(dir, "index.txt"), "");
  fs.writeFileSync(path.join(dir, "serial"), "1000\n");
  fs.writeFileSync(
    path.join(dir, "ca.cnf"),
    [
      "[ca]",
      "default_ca = test",
      "[test]",
      `dir = ${dir}`,
      "database = $dir/index.txt",
      "serial = $dir/serial",
      "new_certs_dir = $dir",
      "certificate = $dir/ca.pem",
      "private_key = $dir/ca.key",
      "default_md = sha256",
      "policy = any",
      "unique_subject = no",
      "copy_extensions = copy",
      "[any]",
      "commonName = supplied",
      "",
    ].join("\n"),
  );
  const leaf = (name: string, san: string, dates: string[]) => {
    openssl(dir, ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${name}`, "-addext", `subjectAltName=${san}`]);
    openssl(dir, ["ca", "-batch", "-config", "ca.cnf", "-in", `${name}.csr`, "-out", `${name}.pem`, "-notext", ...dates]);
    // the chain: the leaf, then the CA (the SDK's TLS matches the host name
    // only while walking a chain of two or more: modules/crypt/ssl/ssl_cert.js)
    const chain = fs.readFileSync(path.join(dir, `${name}.pem`), "utf8") + fs.readFileSync(path.join(dir, "ca.pem"), "utf8");
    return { key: fs.readFileSync(path.join(dir, `${name}.key`), "utf8"), cert: chain };
  };
  const good = leaf("good", "IP:127.0.0.1,DNS:localhost", ["-days", "2"]);
  const expired = leaf("expired", "IP:127.0.0.1,DNS:localhost", ["-startdate", "20200101000000Z", "-enddate", "20200201000000Z"]);
  const wrongHost = leaf("wronghost", "DNS:other.example", ["-days", "2"]);
  return { dir, caPem: path.join(dir, "ca.pem"), caDer: der(path.join(dir, "ca.pem")), otherCaDer: der(path.join(dir, "other-ca.pem")), good, expired, wrongHost };
}

export interface Terminator {
  port: number;
  connections: number; // TLS connections accepted (one handshake each)
  bytesIn: number; // TLS bytes from the clients (closed connections)
  bytesOut: number; // TLS bytes to them
  close(): Promise<void>;
}

// TLS on 127.0.0.1 in front of the plain server at `target()`; the bytes are
// counted on the TCP socket under the TLS one (records, handshakes included).
export async function startTerminator(cert: { key: string; cert: string }, target: () => number): Promise<Terminator> {
  const live = new Set<net.Socket>();
  const t: Terminator = { port: 0, connections: 0, bytesIn: 0, bytesOut: 0, close: async () => undefined };
  const context = tls.createSecureContext({ key: cert.key, cert: cert.cert, minVersion: "TLSv1.2" });
  const server = net.createServer((raw) => {
    const c = new tls.TLSSocket(raw, { isServer: true, secureContext: context });
    let up: net.Socket | undefined;
    let counted = false;
    const end = () => {
      if (!counted) {
        counted = true;
        t.bytesIn += raw.bytesRead;
        t.bytesOut += raw.bytesWritten;
      }
      c.destroy();
      raw.destroy();
      up?.destroy();
      live.delete(raw);
      if (up) live.delete(up);
    };
    live.add(raw);
    raw.on("error", end).on("close", end);
    c.on("error", end).on("close", end);
    c.on("secure", () => {
      t.connections++;
      up = net.connect({ host: "127.0.0.1", port: target() });
      live.add(up);
      up.on("error", end).on("close", end);
      c.pipe(up).pipe(c);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.port = (server.address() as net.AddressInfo).port;
  t.close = () =>
    new Promise<void>((resolve) => {
      for (const s of live) s.destroy();
      server.close(() => resolve());
    });
  return t;
}
