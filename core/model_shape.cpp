#include "model_shape.h"

namespace headroom {

const char* attentionKindName(AttentionKind kind) {
    switch (kind) {
    case AttentionKind::Full:
        return "full";
    case AttentionKind::SlidingWindow:
        return "swa";
    case AttentionKind::Mla:
        return "mla";
    case AttentionKind::Recurrent:
        return "recurrent";
    case AttentionKind::None:
        return "none";
    }
    return "?";
}

const char* shapeSourceName(ShapeSource source) {
    switch (source) {
    case ShapeSource::Catalog:
        return "catalog";
    case ShapeSource::GgufHeader:
        return "gguf_header";
    case ShapeSource::Generated:
        return "generated";
    }
    return "?";
}

bool ModelShape::hasRecurrent() const {
    for (const auto& l : layers)
        // Falcon-H1 keeps a state on Full layers too (attention and SSM side by side).
        if (l.isRecurrent() || l.recurrent_r + l.recurrent_s > 0) return true;
    return false;
}

bool ModelShape::hasSwa() const {
    for (const auto& l : layers)
        if (l.isSwa()) return true;
    return false;
}

std::uint32_t ModelShape::nMoeLayers() const {
    std::uint32_t n = 0;
    for (const auto& l : layers)
        if (l.experts_bytes > 0 && !l.is_mtp) ++n;
    return n;
}

Bytes ModelShape::blockBytes(std::uint32_t il) const {
    const LayerShape& l = layers.at(il);
    return satAdd(satAdd(l.attn_bytes, l.ffn_bytes), l.experts_bytes);
}

Bytes ModelShape::weightBytes() const {
    Bytes total = satAdd(satAdd(token_embd_bytes, output_bytes), other_bytes);
    total = satAdd(total, per_layer_embd_bytes);
    for (std::uint32_t il = 0; il < nLayer(); ++il)
        if (!layers[il].is_mtp) total = satAdd(total, blockBytes(il));
    return total;
}

Bytes ModelShape::expertBytesTotal() const {
    Bytes total = 0;
    for (const auto& l : layers)
        if (!l.is_mtp) total = satAdd(total, l.experts_bytes);
    return total;
}

Bytes ModelShape::bytesPerExpert() const {
    const std::uint32_t n = nMoeLayers();
    if (n == 0 || moe.n_expert == 0) return 0;
    return ceilDiv(expertBytesTotal(), static_cast<Bytes>(n) * moe.n_expert);
}

} // namespace headroom
