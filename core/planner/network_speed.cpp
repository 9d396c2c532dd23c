// The network's share of a token across RPC hosts (issue 15): what crosses the links between the
// main host and its rpc-servers each forward pass, priced on each link's bandwidth and round trip.
#include "planner/speed_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom::detail {

namespace {

// What a forward pass moves over the network, per link, for one layer order.
struct Crossings {
    std::vector<double> activation_transfers; // per RPC host: hidden-state transfers
    std::vector<double> logits_transfers;     // per RPC host: logits transfers (0 or 1)
    std::vector<double> round_trips;          // per RPC host: commands waited on
    std::uint32_t total = 0;
};

// ggml_backend_sched splits the graph where the backend changes and copies each split's input
// (the F32 hidden state) into the next backend (ggml-backend.cpp
// ggml_backend_sched_compute_splits). A copy between an rpc-server and anything else goes through
// the main host: the RPC buffer's get_tensor / set_tensor (ggml-rpc.cpp RPC_CMD_GET_TENSOR,
// RPC_CMD_SET_TENSOR); between two devices of the same server it is one RPC_CMD_COPY_TENSOR, no
// payload on the link. The input layer (token embeddings) is on the CPU (llama_model::load_tensors:
// dev_input = cpu_dev) and the logits are read back into the main host's output buffer
// (llama_context::decode).
Crossings crossings(const Placement& p, const MemoryBudget& budget,
                    const std::vector<std::string>& hosts) {
    Crossings c;
    c.activation_transfers.assign(hosts.size(), 0);
    c.logits_transfers.assign(hosts.size(), 0);
    c.round_trips.assign(hosts.size(), 0);
    auto hostOf = [&](int dev) -> int {
        if (dev < 0) return -1;
        const std::string& e = budget.devices[static_cast<size_t>(dev)].rpc_endpoint;
        for (size_t h = 0; h < hosts.size(); ++h)
            if (hosts[h] == e) return static_cast<int>(h);
        return -1;
    };
    // The stages a token passes, in layer order: the CPU (input, then the layers -ngl leaves
    // there), then each device with layers in device order; the output layer is the last one's.
    std::vector<int> stages{-1};
    for (size_t d = 0; d < p.device_layers.size(); ++d)
        if (p.device_layers[d] > 0) stages.push_back(static_cast<int>(d));
    stages.push_back(-1); // the logits, into the main host's output buffer
    for (size_t i = 0; i + 1 < stages.size(); ++i) {
        const int a = stages[i], b = stages[i + 1];
        if (a == b) continue;
        const int ha = hostOf(a), hb = hostOf(b);
        const bool logits = i + 2 == stages.size();
        if (ha >= 0 && ha == hb) {
            c.round_trips[static_cast<size_t>(ha)] += 1; // same server: a copy command
            ++c.total;
            continue;
        }
        for (int h : {ha, hb}) {
            if (h < 0) continue;
            auto& v = logits && h == ha ? c.logits_transfers : c.activation_transfers;
            v[static_cast<size_t>(h)] += 1;
            c.round_trips[static_cast<size_t>(h)] += 1;
            ++c.total;
        }
    }
    return c;
}

double withNetwork(double tok_s, double net_s) {
    return tok_s > 0 ? 1.0 / (1.0 / tok_s + net_s) : 0;
}

} // namespace

void addNetworkTime(Speed& s, const ModelShape& model, const Placement& placement,
                    const MemoryBudget& budget, const HardwareSnapshot& hw, std::uint32_t ubatch) {
    std::vector<std::string> hosts;
    for (const auto& h : hw.rpc_hosts)
        hosts.push_back(h.endpoint);
    if (hosts.empty() || placement.split_mode == SplitMode::Row) return;
    const Crossings c = crossings(placement, budget, hosts);
    if (c.total == 0) return;
    // F32 hidden state per token (ggml_backend_sched copies the split input as it is: F32);
    // F32 logits of the one token whose output is read (llama-server's last prompt token).
    const double act = 4.0 * model.n_embd;
    const double logits = 4.0 * model.n_vocab;
    const double ub = std::max<std::uint32_t>(1, ubatch);
    double decode_s = 0, prefill_s = 0;
    std::string links;
    for (size_t h = 0; h < hosts.size(); ++h) {
        const RpcHost& r = hw.rpc_hosts[h];
        const double bps = r.link_gbs * 1e9;
        const double rtt = r.rtt_ms / 1000.0;
        const double bytes_decode =
            c.activation_transfers[h] * act + c.logits_transfers[h] * logits;
        decode_s += c.round_trips[h] * rtt + bytes_decode / bps;
        // Prefill: one pass per micro-batch of `ub` tokens; round trips and the logits of the
        // last token are paid once per pass, the hidden states once per token.
        prefill_s += (c.round_trips[h] * rtt + c.logits_transfers[h] * logits / bps) / ub +
                     c.activation_transfers[h] * act / bps;
        if (c.round_trips[h] == 0) continue;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s%s %.3g GB/s, %.3g ms RTT (%s)",
                      links.empty() ? "" : "; ", r.endpoint.c_str(), r.link_gbs, r.rtt_ms,
                      r.link_provenance.c_str());
        links += buf;
    }
    const double decode_before = s.decode_tok_s, prefill_before = s.prefill_tok_s;
    s.decode_tok_s = withNetwork(s.decode_tok_s, decode_s);
    s.decode_low = withNetwork(s.decode_low, decode_s);
    s.decode_high = withNetwork(s.decode_high, decode_s);
    s.prefill_tok_s = withNetwork(s.prefill_tok_s, prefill_s);
    s.prefill_low = withNetwork(s.prefill_low, prefill_s);
    s.prefill_high = withNetwork(s.prefill_high, prefill_s);
    s.network_decode_ms = decode_s * 1000.0;
    s.network_prefill_ms = prefill_s * 1000.0;
    s.network_decode_share = decode_before > 0 ? decode_s * s.decode_tok_s : 0;
    s.network_prefill_share = prefill_before > 0 ? prefill_s * s.prefill_tok_s : 0;
    s.network_crossings = c.total;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "network: %u transfers per forward pass (each a round trip plus its payload: "
                  "the F32 hidden state, %.0f bytes per token, or the logits, %.0f bytes); ",
                  c.total, act, logits);
    s.network_basis = buf + links;
    s.basis += (s.basis.empty() ? "" : "; ") + std::string("network share ") +
               std::to_string(std::lround(s.network_decode_share * 100)) + " % of decode";
}

} // namespace headroom::detail
