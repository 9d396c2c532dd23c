#include "ggml_type.h"

#include <array>

namespace headroom {

namespace {

// Block sizes from ggml/src/ggml-common.h: QK4_0 = QK8_0 = 32, QK_K = 256, QK_MXFP4 = 32,
// QK_NVFP4 = 64, QK1_0 = 128, QK2_0 = 64; byte sizes are the sizeof() of each block struct.
constexpr std::array<GgmlTypeInfo, 35> kTypes = {{
    {GgmlType::F32, "f32", 1, 4},
    {GgmlType::F16, "f16", 1, 2},
    {GgmlType::Q4_0, "q4_0", 32, 18},
    {GgmlType::Q4_1, "q4_1", 32, 20},
    {GgmlType::Q5_0, "q5_0", 32, 22},
    {GgmlType::Q5_1, "q5_1", 32, 24},
    {GgmlType::Q8_0, "q8_0", 32, 34},
    {GgmlType::Q8_1, "q8_1", 32, 36},
    {GgmlType::Q2_K, "q2_K", 256, 84},
    {GgmlType::Q3_K, "q3_K", 256, 110},
    {GgmlType::Q4_K, "q4_K", 256, 144},
    {GgmlType::Q5_K, "q5_K", 256, 176},
    {GgmlType::Q6_K, "q6_K", 256, 210},
    {GgmlType::Q8_K, "q8_K", 256, 292},
    {GgmlType::IQ2_XXS, "iq2_xxs", 256, 66},
    {GgmlType::IQ2_XS, "iq2_xs", 256, 74},
    {GgmlType::IQ3_XXS, "iq3_xxs", 256, 98},
    {GgmlType::IQ1_S, "iq1_s", 256, 50},
    {GgmlType::IQ4_NL, "iq4_nl", 32, 18},
    {GgmlType::IQ3_S, "iq3_s", 256, 110},
    {GgmlType::IQ2_S, "iq2_s", 256, 82},
    {GgmlType::IQ4_XS, "iq4_xs", 256, 136},
    {GgmlType::I8, "i8", 1, 1},
    {GgmlType::I16, "i16", 1, 2},
    {GgmlType::I32, "i32", 1, 4},
    {GgmlType::I64, "i64", 1, 8},
    {GgmlType::F64, "f64", 1, 8},
    {GgmlType::IQ1_M, "iq1_m", 256, 56},
    {GgmlType::BF16, "bf16", 1, 2},
    {GgmlType::TQ1_0, "tq1_0", 256, 54},
    {GgmlType::TQ2_0, "tq2_0", 256, 66},
    {GgmlType::MXFP4, "mxfp4", 32, 17},
    {GgmlType::NVFP4, "nvfp4", 64, 36},
    {GgmlType::Q1_0, "q1_0", 128, 18},
    {GgmlType::Q2_0, "q2_0", 64, 18},
}};

constexpr std::array<GgmlType, 9> kCacheTypes = {GgmlType::F32,    GgmlType::F16,  GgmlType::BF16,
                                                 GgmlType::Q8_0,   GgmlType::Q4_0, GgmlType::Q4_1,
                                                 GgmlType::IQ4_NL, GgmlType::Q5_0, GgmlType::Q5_1};

} // namespace

std::optional<GgmlTypeInfo> ggmlTypeInfo(std::uint32_t id) {
    for (const auto& t : kTypes)
        if (static_cast<std::uint32_t>(t.type) == id) return t;
    return std::nullopt;
}

GgmlTypeInfo ggmlTypeInfo(GgmlType type) {
    // Direct-indexed table: pricing asks this for every layer of every rung.
    static const std::array<GgmlTypeInfo, 64> byId = [] {
        std::array<GgmlTypeInfo, 64> t{};
        for (const auto& info : kTypes)
            t[static_cast<std::uint32_t>(info.type)] = info;
        return t;
    }();
    const auto id = static_cast<std::uint32_t>(type);
    if (id < byId.size() && byId[id].block_elems != 0) return byId[id];
    return *ggmlTypeInfo(id);
}

std::string_view ggmlTypeName(GgmlType type) {
    return ggmlTypeInfo(type).name;
}

std::optional<GgmlType> parseCacheType(std::string_view name) {
    for (GgmlType t : kCacheTypes)
        if (ggmlTypeName(t) == name) return t;
    return std::nullopt;
}

std::string_view cacheTypeNames() {
    return "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1";
}

bool isQuantizedCacheType(GgmlType type) {
    return type != GgmlType::F32 && type != GgmlType::F16 && type != GgmlType::BF16;
}

Bytes ggmlRowBytes(GgmlType type, std::uint64_t n) {
    const GgmlTypeInfo info = ggmlTypeInfo(type);
    return satMul(ceilDiv(n, info.block_elems), info.block_bytes);
}

} // namespace headroom
