// The app's configuration on x-cli-lin. mcconfig generates `mc/config` from
// manifest.json's `config` for every platform but the x-cli ones, so this is
// that module for x-cli-lin (manifest.json maps "mc/config" here).
// The folder is created by tools/x-cli-lin/petmem-host.c (PETMEM_DATA_DIR).
// `tls`: what the SDK's crypt/tls_common.json puts in every other platform's
// config (its cipher suites read it at load).
export default Object.freeze({
	file: Object.freeze({ root: "/tmp/petmem/" }),
	tls: Object.freeze({ DHE_RSA: true, ECDHE_RSA: true }),
});
