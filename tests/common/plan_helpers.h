// Helpers shared by the planner tests: a plan that must exist, and the small MoE shape.
#pragma once

#include "common/test_shapes.h"
#include "planner.h"

#include <QtTest>

namespace headroom::test {

// makePlan for inputs a test knows to be valid: a failure is the test's bug, reported as fatal.
inline Plan planOrFail(const ModelShape& m, const HardwareSnapshot& hw, const PlanOptions& o = {}) {
    auto p = makePlan(m, hw, o);
    if (!p) qFatal("makePlan failed: %s", p.error().message.c_str());
    return *p;
}

// A MoE model: 8 blocks, each 50 MiB attention + 1 GiB of routed experts (64 experts, 8 used),
// one 64-wide KV head; 100 MiB output.
inline ModelShape moeShape() {
    ModelShape m = denseShape(8, 8, 1, 64, 32000, 0, 131072);
    m.id = "test-moe";
    m.moe = {64, 8, 0};
    m.n_ff_exp = 512;
    for (auto& l : m.layers) {
        l.attn_bytes = 50 * MiB;
        l.ffn_bytes = 0;
        l.experts_bytes = GiB;
    }
    m.output_bytes = 100 * MiB;
    return m;
}

} // namespace headroom::test
