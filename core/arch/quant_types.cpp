#include "arch/quant_types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace headroom {

namespace {

std::string upper(std::string_view s) {
    std::string u(s);
    std::transform(u.begin(), u.end(), u.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return u;
}

// llama_model_ftype_get_default_type's base type of each mixture.
GgmlType baseType(FileType f) {
    switch (f) {
    case FileType::F16:
        return GgmlType::F16;
    case FileType::BF16:
        return GgmlType::BF16;
    case FileType::Q8_0:
        return GgmlType::Q8_0;
    case FileType::Q6_K:
        return GgmlType::Q6_K;
    case FileType::Q5_K_M:
    case FileType::Q5_K_S:
        return GgmlType::Q5_K;
    case FileType::Q5_0:
        return GgmlType::Q5_0;
    case FileType::Q5_1:
        return GgmlType::Q5_1;
    case FileType::Q4_K_M:
    case FileType::Q4_K_S:
        return GgmlType::Q4_K;
    case FileType::Q4_0:
        return GgmlType::Q4_0;
    case FileType::Q4_1:
        return GgmlType::Q4_1;
    case FileType::Q3_K_L:
    case FileType::Q3_K_M:
    case FileType::Q3_K_S:
        return GgmlType::Q3_K;
    case FileType::Q2_K:
        return GgmlType::Q2_K;
    case FileType::IQ4_XS:
        return GgmlType::IQ4_XS;
    case FileType::IQ4_NL:
        return GgmlType::IQ4_NL;
    case FileType::MXFP4_MOE:
        return GgmlType::MXFP4;
    }
    return GgmlType::F16;
}

bool isQuantized(GgmlType t) {
    return t != GgmlType::F32 && t != GgmlType::F16 && t != GgmlType::BF16;
}

std::int64_t blockElems(GgmlType t) {
    return ggmlTypeInfo(t).block_elems;
}

// tensor_type_fallback: a row that is not a whole number of the type's blocks takes a 32-element
// type, else F16.
GgmlType fallback(GgmlType t, std::int64_t ne0) {
    if (ne0 % blockElems(t) == 0) return t;
    GgmlType r = t;
    switch (t) {
    case GgmlType::IQ4_XS:
    case GgmlType::IQ3_S:
    case GgmlType::IQ3_XXS:
    case GgmlType::IQ2_S:
    case GgmlType::IQ2_XS:
    case GgmlType::IQ2_XXS:
    case GgmlType::IQ1_S:
    case GgmlType::IQ1_M:
        r = GgmlType::IQ4_NL;
        break;
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
        r = GgmlType::Q4_0;
        break;
    case GgmlType::Q4_K:
        r = GgmlType::Q5_0;
        break;
    case GgmlType::Q5_K:
        r = GgmlType::Q5_1;
        break;
    case GgmlType::Q6_K:
        r = GgmlType::Q8_0;
        break;
    default:
        break;
    }
    return ne0 % blockElems(r) == 0 ? r : GgmlType::F16;
}

// use_more_bits: the first and last eighth of the layers and every third one between.
bool useMoreBits(int i, int n) {
    return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

// llama_tensor_get_type_impl for the mixtures FileType lists (the IQ1/IQ2/IQ3 branches are not
// reached by them).
GgmlType mixtureType(FileType f, const QuantModel& m, const QuantTensor& t, GgmlType type) {
    using F = FileType;
    using G = GgmlType;
    const int n = static_cast<int>(m.n_layer);
    const bool attn_v_like = t.role == TensorRole::AttnV || t.role == TensorRole::AttnQkv ||
                             t.role == TensorRole::AttnKvB;
    if (t.role == TensorRole::Output || (m.tied_embeddings && t.role == TensorRole::TokenEmbd)) {
        if (f == F::MXFP4_MOE) return G::Q8_0;
        if (m.falcon || t.ne0 % blockElems(type) != 0) return G::Q8_0;
        return type != G::Q8_0 ? G::Q6_K : type;
    }
    if (f == F::MXFP4_MOE) return t.expert_bank ? G::MXFP4 : G::Q8_0;
    if (t.role == TensorRole::TokenEmbd) return type;
    if (attn_v_like) {
        const int i = t.attn_v_index;
        // The mixtures that raise attn_v to Q5_K, in llama_tensor_get_type_impl's order.
        const bool to_q5 = f == F::Q3_K_L || ((f == F::IQ4_NL || f == F::IQ4_XS) && m.n_gqa >= 4);
        if (f == F::Q2_K)
            type = m.n_gqa >= 4 ? G::Q4_K : G::Q3_K;
        else if (f == F::Q3_K_M)
            type = i < 2 ? G::Q5_K : G::Q4_K;
        else if (to_q5 || (f == F::Q4_K_S && i < 4))
            type = G::Q5_K;
        else if ((f == F::Q4_K_M || f == F::Q5_K_M) && useMoreBits(i, t.n_attn_v))
            type = G::Q6_K;
        // LLM_TYPE_70B's bump of attn_v needs the model's size class; not modelled (a few MiB).
        if (m.n_expert == 8) type = G::Q8_0;
        return type;
    }
    if (t.role == TensorRole::AttnK) return m.n_expert == 8 ? G::Q8_0 : type;
    if (t.role == TensorRole::FfnDown) {
        const int i = t.layer;
        if (f == F::Q2_K) return G::Q3_K;
        if (f == F::Q3_K_M)
            return i < n / 16 ? G::Q5_K : (!m.falcon || useMoreBits(i, n)) ? G::Q4_K : G::Q3_K;
        if (f == F::Q3_K_L) return m.falcon ? G::Q4_K : G::Q5_K;
        if (f == F::Q4_K_M) {
            if (m.falcon) return i < n / 16 ? G::Q6_K : useMoreBits(i, n) ? G::Q5_K : G::Q4_K;
            return useMoreBits(i, n) ? G::Q6_K : type;
        }
        // IQ4_XS / IQ4_NL raise the first eighth only without an imatrix, which a published
        // file may or may not have used: the smaller type is kept (the file size decides).
        if (f == F::Q5_K_M && useMoreBits(i, n)) return G::Q6_K;
        if (f == F::Q4_K_S && !m.falcon && i < n / 8) return G::Q5_K;
        return type;
    }
    if (t.role == TensorRole::AttnOutput) {
        if (m.falcon) return f == F::Q3_K_L ? G::Q4_K : type;
        if (m.n_expert == 8) {
            const bool bump = f == F::Q2_K || f == F::Q3_K_S || f == F::Q3_K_M || f == F::IQ4_NL ||
                              f == F::Q4_K_S || f == F::Q4_K_M || f == F::IQ4_XS;
            return bump ? G::Q5_K : type;
        }
        if (f == F::Q2_K) return G::Q3_K;
        if (f == F::Q3_K_M) return G::Q4_K;
        if (f == F::Q3_K_L) return G::Q5_K;
        return type;
    }
    return type;
}

} // namespace

std::optional<FileType> fileTypeFromQuantName(std::string_view name) {
    static constexpr std::array<std::pair<std::string_view, FileType>, 21> kNames{{
        {"F16", FileType::F16},         {"BF16", FileType::BF16},
        {"Q8_0", FileType::Q8_0},       {"Q6_K", FileType::Q6_K},
        {"Q5_K_M", FileType::Q5_K_M},   {"Q5_K_S", FileType::Q5_K_S},
        {"Q5_0", FileType::Q5_0},       {"Q5_1", FileType::Q5_1},
        {"Q4_K_M", FileType::Q4_K_M},   {"Q4_K_S", FileType::Q4_K_S},
        {"Q4_0", FileType::Q4_0},       {"Q4_1", FileType::Q4_1},
        {"Q3_K_L", FileType::Q3_K_L},   {"Q3_K_M", FileType::Q3_K_M},
        {"Q3_K_S", FileType::Q3_K_S},   {"Q2_K", FileType::Q2_K},
        {"IQ4_XS", FileType::IQ4_XS},   {"IQ4_NL", FileType::IQ4_NL},
        {"MXFP4", FileType::MXFP4_MOE}, {"MXFP4_MOE", FileType::MXFP4_MOE},
        {"Q8", FileType::Q8_0},
    }};
    const std::string u = upper(name);
    for (const auto& [n, f] : kNames)
        if (u == n) return f;
    return std::nullopt;
}

GgmlType quantizedType(FileType ftype, const QuantModel& model, const QuantTensor& t,
                       GgmlType source) {
    if (t.role == TensorRole::Unquantized) return source;
    const GgmlType base = baseType(ftype);
    // llama_tensor_get_type: only a quantized default type takes the mixture's rules and the
    // fallback; an F16 or BF16 file converts every weight matrix to it.
    if (!isQuantized(base)) return base;
    return fallback(mixtureType(ftype, model, t, base), t.ne0);
}

} // namespace headroom
