// The Moddable SDK's `securesocket` module (modules/crypt/securesocket) as the
// device's code names it: passed as `Socket` to the `http` module's Request
// with a `secure` dictionary (`certificate`: the CA in DER, `protocolVersion`),
// it makes the request over TLS. host-sim's `http` (host-sim/http.ts) sees
// this class and speaks TLS through node:tls with the device's contract: the
// server's chain must lead to the given CA and name the host asked for; a
// failure is the request's error, with the reason.
export default class SecureSocket {
  constructor(_dictionary: Record<string, unknown>) {
    throw new Error("securesocket: on the host, only as the `Socket` of an http Request");
  }
}
