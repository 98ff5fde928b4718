// The app's configuration as mcconfig would generate it from manifest.json.
const config = Object.freeze({
  file: Object.freeze({ root: "/data/" }),
});
export default config;
