// libFuzzer target for the GGUF header reader: any bytes must parse or give an Error, never
// crash, hang or read out of bounds. Built with clang++ -fsanitize=fuzzer,address,undefined
// (see tests/fuzz/CMakeLists.txt and docs/fuzzing.md).
#include "gguf/gguf_reader.h"

#include <cstddef>
#include <cstdint>

using namespace headroom;

namespace {

// Touches every decoded view of an array so the lazy accessors are fuzzed too.
std::size_t walk(const GgufArray& a, int depth) {
    std::size_t n = a.raw().size();
    n += a.ints().size() + a.floats().size() + a.strings().size() + a.stringViews().size();
    if (a.size() > 0) {
        n += a.intAt(a.size() - 1).has_value();
        n += a.uintAt(0).has_value();
        n += a.floatAt(0).has_value();
        n += a.boolAt(0).has_value();
        if (a.size() < 64) n += a.stringAt(a.size() - 1).has_value();
    }
    if (depth < 16)
        for (const auto& child : a.arrays())
            n += walk(child, depth + 1);
    return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto r = parseGguf(std::span<const std::uint8_t>(data, size), "fuzz");
    if (!r) {
        // Every error names where it happened.
        if (r.error().message.find("at byte offset ") == std::string::npos) __builtin_trap();
        return 0;
    }
    std::size_t sink = 0;
    for (const auto& [key, value] : r->metadata) {
        sink += r->getUInt(key).has_value() + r->getInt(key).has_value() +
                r->getFloat(key).has_value() + r->getBool(key).has_value() +
                r->getString(key).has_value();
        if (const GgufArray* a = value.asArray()) sink += walk(*a, 0);
    }
    Bytes total = 0;
    for (const auto& t : r->tensors) {
        if (t.file_offset + t.bytes > r->file_bytes) __builtin_trap(); // placement was checked
        total += t.bytes;
        sink += r->findTensor(t.name) != nullptr;
    }
    if (total != r->tensor_bytes) __builtin_trap();
    volatile std::size_t keep = sink;
    (void)keep;
    return 0;
}
