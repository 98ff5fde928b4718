// Moddable's `text/decoder` module: the standard TextDecoder as a module.
const Decoder = globalThis.TextDecoder;
export default Decoder;
