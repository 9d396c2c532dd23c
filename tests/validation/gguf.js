// Minimal GGUF v3 writer for the validation models: header, KV pairs, tensor infos, alignment
// padding; the tensor data is left as a hole (the file is extended with truncate), so an 80B
// model costs only its header on disk. Layout per ggml/docs/gguf.md and ggml/src/gguf.cpp.
'use strict';
const fs = require('fs');

const KV_TYPE = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };
// ggml_type ids and block geometry (ggml/include/ggml.h, ggml/src/ggml.c type_traits)
const GGML = {
  f32: { id: 0, block: 1, bytes: 4 },
  f16: { id: 1, block: 1, bytes: 2 },
  q8_0: { id: 8, block: 32, bytes: 34 },
  q4_0: { id: 2, block: 32, bytes: 18 },
};
const ALIGNMENT = 32; // general.alignment default (GGUF_DEFAULT_ALIGNMENT)

class Buf {
  constructor() { this.parts = []; this.length = 0; }
  push(b) { this.parts.push(b); this.length += b.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
  u8(v) { this.push(Buffer.from([v])); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.push(b); }
  concat() { return Buffer.concat(this.parts); }
}

function writeValue(buf, type, v) {
  switch (type) {
    case 'u32': buf.u32(v); break;
    case 'i32': buf.i32(v); break;
    case 'u64': buf.u64(v); break;
    case 'f32': buf.f32(v); break;
    case 'bool': buf.u8(v ? 1 : 0); break;
    case 'str': buf.str(v); break;
    default: throw new Error(`unsupported scalar type ${type}`);
  }
}

function tensorBytes(type, ne) {
  const t = GGML[type];
  if (ne[0] % t.block !== 0) throw new Error(`row of ${ne[0]} is not a multiple of the ${type} block`);
  return (ne.reduce((a, b) => a * b, 1) / t.block) * t.bytes;
}

// The weight type a converter would plausibly pick, restricted to types the x86 CPU backend does
// not repack (Q4_0/Q4_K/IQ4_NL/MXFP4 go to an extra CPU_REPACK buffer that is filled from the
// file): vectors, small and oddly shaped tensors stay F32, matrices become Q8_0.
function chooseType(name, ne) {
  if (ne.length === 1 || ne[0] % 32 !== 0 || ne.reduce((a, b) => a * b, 1) < 1024 * 1024) return 'f32';
  return 'q8_0';
}

// spec: {kv: {key: [type, value]}}, tensors: [[name, ne[]], ...]
function writeGguf(path, spec, tensors) {
  const buf = new Buf();
  buf.push(Buffer.from('GGUF', 'ascii'));
  buf.u32(3);
  buf.u64(tensors.length);
  const kvs = Object.entries(spec.kv);
  buf.u64(kvs.length);
  for (const [key, [type, v]] of kvs) {
    buf.str(key);
    if (type.startsWith('arr_')) {
      const et = type.slice(4);
      buf.u32(KV_TYPE.arr);
      buf.u32(KV_TYPE[et]);
      buf.u64(v.length);
      for (const e of v) writeValue(buf, et, e);
    } else {
      buf.u32(KV_TYPE[type]);
      writeValue(buf, type, v);
    }
  }
  let offset = 0;
  const layout = [];
  for (const [name, ne] of tensors) {
    const type = chooseType(name, ne);
    const nbytes = tensorBytes(type, ne);
    buf.str(name);
    buf.u32(ne.length);
    for (const d of ne) buf.u64(d);
    buf.u32(GGML[type].id);
    buf.u64(offset);
    layout.push({ name, ne, type, offset, nbytes });
    offset += Math.ceil(nbytes / ALIGNMENT) * ALIGNMENT;
  }
  let header = buf.concat();
  const dataStart = Math.ceil(header.length / ALIGNMENT) * ALIGNMENT;
  header = Buffer.concat([header, Buffer.alloc(dataStart - header.length)]);
  const tmp = `${path}.tmp${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, header);
  fs.ftruncateSync(fd, dataStart + offset); // the data is a hole
  fs.closeSync(fd);
  fs.renameSync(tmp, path);
  return { fileBytes: dataStart + offset, dataBytes: offset, tensors: layout };
}

module.exports = { writeGguf, GGML };
