// ggml tensor types and their block geometry, as ggml's type_traits table defines them
// (ggml/src/ggml.c `type_traits`, block structs in ggml/src/ggml-common.h).
#pragma once

#include "units.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {

// Numeric values are the on-disk ids of GGUF files (ggml.h `enum ggml_type`); never renumber.
enum class GgmlType : std::uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q8_1 = 9,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    Q8_K = 15,
    IQ2_XXS = 16,
    IQ2_XS = 17,
    IQ3_XXS = 18,
    IQ1_S = 19,
    IQ4_NL = 20,
    IQ3_S = 21,
    IQ2_S = 22,
    IQ4_XS = 23,
    I8 = 24,
    I16 = 25,
    I32 = 26,
    I64 = 27,
    F64 = 28,
    IQ1_M = 29,
    BF16 = 30,
    TQ1_0 = 34,
    TQ2_0 = 35,
    MXFP4 = 39,
    NVFP4 = 40,
    Q1_0 = 41,
    Q2_0 = 42,
};

struct GgmlTypeInfo {
    GgmlType type;
    std::string_view name;     // as ggml_type_name() prints it ("q8_0", "f16")
    std::uint32_t block_elems; // ggml blck_size
    std::uint32_t block_bytes; // ggml type_size (bytes of one block)
};

// nullopt for ids ggml never had or has removed (4, 5, 31-33, 36-38) and anything past the end.
std::optional<GgmlTypeInfo> ggmlTypeInfo(std::uint32_t id);
GgmlTypeInfo ggmlTypeInfo(GgmlType type);
std::string_view ggmlTypeName(GgmlType type);

// Types llama.cpp accepts for --cache-type-k/-v (common/arg.cpp `kv_cache_types`).
std::optional<GgmlType> parseCacheType(std::string_view name);
std::string_view cacheTypeNames(); // "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1"
bool isQuantizedCacheType(GgmlType type);

// Bytes of one row of `n` elements: ggml_row_size() = type_size * n / blck_size. ggml asserts
// n % blck_size == 0; for a ragged row we round up to whole blocks so a price never comes out low.
Bytes ggmlRowBytes(GgmlType type, std::uint64_t n);

} // namespace headroom
