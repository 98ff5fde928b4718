// The app's configuration on x-cli-lin. mcconfig generates `mc/config` from
// manifest.json's `config` for every platform but the x-cli ones, so this is
// that module for x-cli-lin (manifest.json maps "mc/config" here).
// The folder is created by tools/x-cli-lin/petmem-host.c (PETMEM_DATA_DIR).
export default Object.freeze({
	file: Object.freeze({ root: "/tmp/petmem/" }),
});
