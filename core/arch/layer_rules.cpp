#include "arch/layer_rules.h"

namespace headroom {

bool periodicPatternLayer(std::uint32_t il, std::uint32_t n_pattern, bool dense_first,
                          std::uint32_t n_trunk) {
    if (il >= n_trunk) return false;
    if (n_pattern == 0) return true;
    return dense_first ? il % n_pattern != 0 : il % n_pattern < n_pattern - 1;
}

void setLayerMemory(LayerShape& l, const LayerMemory& m) {
    if (m.kv) {
        l.n_embd_k_gqa = m.head_k * m.n_head_kv;
        l.n_embd_v_gqa = m.mla ? 0 : m.head_v * m.n_head_kv;
        // An MLA layer that slides (dots3note) is a window-sized row with no V: SlidingWindow
        // with n_embd_v_gqa 0 (the V of every layer is absent when the model is MLA).
        l.attention = m.mla && !m.swa ? AttentionKind::Mla
                      : m.swa         ? AttentionKind::SlidingWindow
                                      : AttentionKind::Full;
    } else {
        l.attention = m.recurrent ? AttentionKind::Recurrent : AttentionKind::None;
    }
    if (m.recurrent) {
        l.recurrent_r = m.state_r;
        l.recurrent_s = m.state_s;
    }
}

} // namespace headroom
