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
// This one keeps no state at all in the XS heap, as the device keeps NVS in C:
// every call goes to the file system, so the heap holds only the call's
// arguments and result and the x-cli-lin heap figures are the device's. (It
// once kept all of NVS as one parsed JSON object in the heap and wrote the
// whole file at every set: with two copies of every store that was 33 KB of
// JSON and the heap workload grew the chunk heap to 300 KB.)
//
// It keeps the device's contract (docs: PLATFORM.md, preference): domain and
// key 1..15 bytes, values boolean, int32, string or ArrayBuffer of at most
// 4000 bytes, anything else throws; get of a missing key is undefined, keys of
// an unknown domain []. Storage: one file per key in `<root>nvs/`, named
// `<domain>~<key>` (characters other than A-Z a-z 0-9 _ . - as %XX of their
// UTF-8 bytes), holding a type byte (b, i, s, a) and the value; each is
// replaced atomically (written to `~tmp`, then renamed over).

import { File, Iterator, Directory } from "file";
import config from "mc/config";

const MAX_NAME = 15;
const MAX_VALUE = 4000;

function dir() {
	return config.file.root + "nvs/";
}

function bytes(s) {
	return ArrayBuffer.fromString(s).byteLength;
}

function escape(s) {
	let out = "";
	for (const ch of s) {
		const c = ch.charCodeAt(0);
		if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45)
			out += ch; // 0-9 A-Z a-z _ . -
		else {
			const u = new Uint8Array(ArrayBuffer.fromString(ch));
			for (let i = 0; i < u.length; i++)
				out += "%" + (u[i] < 16 ? "0" : "") + u[i].toString(16);
		}
	}
	return out.charAt(0) === "." ? "%2e" + out.slice(1) : out;
}

function unescape(s) {
	if (s.indexOf("%") < 0)
		return s;
	const u = new Uint8Array(s.length);
	let n = 0;
	for (let i = 0; i < s.length; i++) {
		if (s.charAt(i) === "%") {
			u[n++] = parseInt(s.slice(i + 1, i + 3), 16);
			i += 2;
		}
		else
			u[n++] = s.charCodeAt(i);
	}
	return String.fromArrayBuffer(u.buffer.slice(0, n));
}

function path(domain, key) {
	return dir() + escape(domain) + "~" + escape(key);
}

function checkName(what, s) {
	if (typeof s !== "string")
		s = String(s);
	const n = bytes(s);
	if (n < 1 || n > MAX_NAME)
		throw new Error(`nvs ${what} invalid`);
	return s;
}

// The file's bytes: a type byte, then the value.
function encode(value) {
	switch (typeof value) {
	case "boolean":
		return ["b", value ? 1 : 0];
	case "number":
		if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647)
			throw new Error("invalid value");
		return ["i", String(value)];
	case "string":
		if (bytes(value) + 1 > MAX_VALUE)
			throw new Error("nvs set fail");
		return ["s", value];
	default:
		if (value instanceof ArrayBuffer) {
			if (value.byteLength > MAX_VALUE)
				throw new Error("nvs set fail");
			return ["a", value];
		}
		throw new Error("invalid value");
	}
}

function read(p) {
	const f = new File(p);
	try {
		const length = f.length;
		if (length < 1)
			throw new Error("nvs get fail");
		const type = String.fromArrayBuffer(f.read(ArrayBuffer, 1));
		if (type === "a")
			return length > 1 ? f.read(ArrayBuffer, length - 1) : new ArrayBuffer(0);
		if (type === "b")
			return new Uint8Array(f.read(ArrayBuffer, 1))[0] === 1;
		const text = length > 1 ? f.read(String, length - 1) : "";
		if (type === "s")
			return text;
		if (type === "i")
			return parseInt(text, 10);
		throw new Error("nvs get fail");
	}
	finally {
		f.close();
	}
}

export default class Preference {
	static set(domain, key, value) {
		if (arguments.length < 3)
			throw new Error("missing argument");
		domain = checkName("domain", domain);
		key = checkName("key", key);
		const [type, data] = encode(value);
		Directory.create(dir());
		const temp = dir() + "~tmp";
		File.delete(temp);
		const f = new File(temp, true);
		try {
			f.write(type, data);
		}
		finally {
			f.close();
		}
		if (!File.rename(temp, path(domain, key)))
			throw new Error("nvs set fail");
	}
	static get(domain, key) {
		if (arguments.length < 2)
			throw new Error("missing argument");
		const p = path(String(domain), String(key));
		if (!File.exists(p))
			return undefined;
		return read(p);
	}
	static delete(domain, key) {
		if (arguments.length < 2)
			throw new Error("missing argument");
		File.delete(path(String(domain), String(key)));
	}
	static keys(domain) {
		if (arguments.length < 1)
			throw new Error("missing argument");
		const prefix = escape(String(domain)) + "~";
		const out = [];
		let it;
		try {
			it = new Iterator(dir());
		}
		catch {
			return out; // no folder yet: nothing was ever set
		}
		for (let e = it.next(); e; e = it.next()) {
			const n = e.name;
			if (e.length !== undefined && n.startsWith(prefix) && n.length > prefix.length)
				out.push(unescape(n.slice(prefix.length)));
		}
		return out;
	}
}
Object.freeze(Preference.prototype);
