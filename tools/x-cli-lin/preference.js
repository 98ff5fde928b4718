// The `preference` module of petmem's headless Linux host (x-cli-lin).
//
// Why not the SDK's (modules/files/preference/lin): that one builds its cache in
// a static field at module load. Loaded at build time (preload), the cache is
// made on the build machine and frozen with the module, and every later save
// fails silently: nothing persists across a restart. Any preloaded module that
// imports `preference` preloads it too, so with the SDK's module nothing that
// touches NVS (memory, stores, the service) could be preloaded on x-cli-lin,
// and the heap measured there would not be the device's.
//
// This one loads nothing until its first call, at run time, so it may be
// preloaded, and it keeps the device's contract (docs: PLATFORM.md, preference):
// domain and key 1..15 bytes, values boolean, int32, string or ArrayBuffer of at
// most 4000 bytes, anything else throws; get of a missing key is undefined,
// keys of an unknown domain []. Storage: one JSON file in config.file.root,
// replaced atomically (written beside, then renamed over) at every change.

import { File } from "file";
import config from "mc/config";

const NAME = "preferences.json";
const PATH = config.file.root + NAME;
const TEMP = config.file.root + "preferences.tmp";
const MAX_NAME = 15;
const MAX_VALUE = 4000;

let cache; // {domain: {key: value}}, values stored as {b: "hex"} for ArrayBuffers

function bytes(s) {
	return ArrayBuffer.fromString(s).byteLength;
}

function load() {
	if (cache)
		return cache;
	let text;
	if (File.exists(PATH)) {
		const f = new File(PATH);
		try {
			text = f.length ? f.read(String) : "{}";
		}
		finally {
			f.close();
		}
	}
	try {
		cache = text ? JSON.parse(text) : {};
	}
	catch {
		throw new Error("nvs get fail");
	}
	return cache;
}

function save() {
	File.delete(TEMP);
	const f = new File(TEMP, true);
	try {
		f.write(JSON.stringify(cache));
	}
	finally {
		f.close();
	}
	if (!File.rename(TEMP, NAME))
		throw new Error("nvs set fail");
}

function checkName(what, s) {
	if (typeof s !== "string")
		s = String(s);
	const n = bytes(s);
	if (n < 1 || n > MAX_NAME)
		throw new Error(`nvs ${what} invalid`);
	return s;
}

function encode(value) {
	switch (typeof value) {
	case "boolean":
		return value;
	case "number":
		if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647)
			throw new Error("invalid value");
		return value;
	case "string":
		if (bytes(value) + 1 > MAX_VALUE)
			throw new Error("nvs set fail");
		return value;
	default:
		if (value instanceof ArrayBuffer) {
			if (value.byteLength > MAX_VALUE)
				throw new Error("nvs set fail");
			const u = new Uint8Array(value);
			let hex = "";
			for (let i = 0; i < u.length; i++)
				hex += (u[i] < 16 ? "0" : "") + u[i].toString(16);
			return { b: hex };
		}
		throw new Error("invalid value");
	}
}

function decode(stored) {
	if (stored === null || typeof stored !== "object")
		return stored;
	const hex = stored.b;
	const u = new Uint8Array(hex.length >> 1);
	for (let i = 0; i < u.length; i++)
		u[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
	return u.buffer;
}

export default class Preference {
	static set(domain, key, value) {
		if (arguments.length < 3)
			throw new Error("missing argument");
		domain = checkName("domain", domain);
		key = checkName("key", key);
		const stored = encode(value);
		const all = load();
		all[domain] ??= {};
		all[domain][key] = stored;
		save();
	}
	static get(domain, key) {
		if (arguments.length < 2)
			throw new Error("missing argument");
		const d = load()[String(domain)];
		if (!d || !Object.prototype.hasOwnProperty.call(d, String(key)))
			return undefined;
		return decode(d[String(key)]);
	}
	static delete(domain, key) {
		if (arguments.length < 2)
			throw new Error("missing argument");
		const all = load();
		const d = all[String(domain)];
		if (!d || !Object.prototype.hasOwnProperty.call(d, String(key)))
			return;
		delete d[String(key)];
		if (!Object.keys(d).length)
			delete all[String(domain)];
		save();
	}
	static keys(domain) {
		if (arguments.length < 1)
			throw new Error("missing argument");
		const d = load()[String(domain)];
		return d ? Object.keys(d) : [];
	}
}
Object.freeze(Preference.prototype);
