// What the verify tests (CLI and GUI) run against: a small llama GGUF whose data is a hole, and
// stand-in llama-server scripts that print llama.cpp's buffer lines, exit or hang.
#pragma once

#include "gguf/gguf_writer.h"

#include <QFile>
#include <QString>

#include <string>
#include <vector>

namespace headroom::test {

// 4 blocks of n_embd 1024 (only attn_q per block), a 4096-token vocabulary, Q8_0.
inline GgufWriter smallLlamaGguf() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("general.name", GgufValue::string("Llama Test"));
    w.set("llama.context_length", GgufValue::u32(8192));
    w.set("llama.embedding_length", GgufValue::u32(1024));
    w.set("llama.block_count", GgufValue::u32(4));
    w.set("llama.feed_forward_length", GgufValue::u32(2816));
    w.set("llama.attention.head_count", GgufValue::u32(8));
    w.set("llama.attention.head_count_kv", GgufValue::u32(2));
    w.set("tokenizer.ggml.tokens",
          GgufValue::array(GgufArray::ofStrings(std::vector<std::string>(4096, "t"))));
    w.addTensor("token_embd.weight", {1024, 4096}, GgmlType::Q8_0);
    for (int il = 0; il < 4; ++il)
        w.addTensor("blk." + std::to_string(il) + ".attn_q.weight", {1024, 1024}, GgmlType::Q8_0);
    return w;
}

// An executable shell script at `path`: `body` after the shebang. Empty when it cannot be written.
inline QString standInServer(const QString& path, const QByteArray& body) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write("#!/bin/sh\n" + body);
    f.close();
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

} // namespace headroom::test
