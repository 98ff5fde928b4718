// Moddable's `text/decoder` module: the standard TextDecoder as a module.
const Decoder = TextDecoder;
export default Decoder;
