// Writes one sparse GGUF replica from the validation suite's models (tests/validation/models.js,
// tensors/ and gguf.js): the real hyperparameters and tensor layout, data left as a hole.
// Usage: node make_replica.js MODEL_ID OUT.gguf
'use strict';
const fs = require('fs');
const path = require('path');
const validation = path.join(__dirname, '..', 'validation');
const { MODELS } = require(path.join(validation, 'models.js'));
const { writeGguf } = require(path.join(validation, 'gguf.js'));

const [, , id, out] = process.argv;
const m = MODELS.find((x) => x.id === id);
if (!m) { console.error(`unknown model ${id}`); process.exit(1); }
const tensors = JSON.parse(fs.readFileSync(path.join(validation, 'tensors', `${id}.json`), 'utf8'));
writeGguf(out, { kv: m.kv }, tensors);
