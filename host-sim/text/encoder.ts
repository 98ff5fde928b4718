// Moddable's `text/encoder` module: the standard TextEncoder as a module.
const Encoder = TextEncoder;
export default Encoder;
