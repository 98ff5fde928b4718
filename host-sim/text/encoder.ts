// Moddable's `text/encoder` module: the standard TextEncoder as a module.
const Encoder = globalThis.TextEncoder;
export default Encoder;
