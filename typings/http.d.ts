// The Moddable SDK's `http` client (modules/network/http/http.js) as device
// code sees it; on the desktop and in tests host-sim/http.ts implements it.
export class Request {
  constructor(dictionary: { host?: string; address?: string; port?: number; method?: string; path?: string; headers?: (string | number)[]; body?: string | ArrayBuffer | true; response?: typeof String | typeof ArrayBuffer });
  callback: ((this: Request, message: number, value?: unknown, etc?: unknown) => unknown) | undefined;
  read(type: typeof String | typeof ArrayBuffer | null, count?: number): string | ArrayBuffer | number | undefined;
  close(): void;
  static readonly requestFragment: number;
  static readonly status: number;
  static readonly header: number;
  static readonly headersComplete: number;
  static readonly responseFragment: number;
  static readonly responseComplete: number;
  static readonly error: number;
}
