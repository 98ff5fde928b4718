// Device builds get TextEncoder/TextDecoder as modules (text/encoder, text/decoder);
// host-sim re-exports the engine's globals. Declared here for the device type check,
// whose lib has no DOM.
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
}
