#include "plan_format.h"

#include "export/rpc_server.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace headroom::cli {

namespace {

std::string gib(Bytes b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(b) / GiB);
    return buf;
}

std::string pad(std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}

std::string rpad(std::string s, size_t w) {
    if (s.size() < w) s.insert(0, w - s.size(), ' ');
    return s;
}

std::string tokS(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
    return buf;
}

// "41.2 (33-49)": the estimate and the range it is expected in.
std::string tokRange(double v, double lo, double hi) {
    if (!(v > 0)) return "-";
    if (!(hi > 0)) return tokS(v);
    return tokS(v) + " (" + tokS(lo) + "-" + tokS(hi) + ")";
}

// The short name of device i in table columns: llama.cpp's own name ("RPC0") and, for an RPC
// device, what it is on its server ("RPC0 CUDA0"); the host is said by the group it sits in.
// Budget devices are in clusterDevices() order (MemoryBudget is built from it).
std::string shortDeviceName(const Plan& plan, std::size_t i) {
    const std::vector<ClusterDevice> cluster = clusterDevices(plan.hardware);
    if (i >= cluster.size() || cluster.size() != plan.budget.devices.size())
        return i < plan.budget.devices.size() ? plan.budget.devices[i].name : std::string();
    const ClusterDevice& c = cluster[i];
    if (c.rpc_host < 0) return c.name;
    return c.gpu && !c.gpu->name.empty() ? c.name + " " + c.gpu->name : c.name;
}

// The rung whose placement the per-host table shows: the launch window, else (every rung
// refused) the smallest rung, so a refused cluster still shows where each layer would go.
const Rung* shownRung(const Plan& plan) {
    if (plan.rungs.empty()) return nullptr;
    const int i = plan.decision.rung_index;
    if (i >= 0 && i < static_cast<int>(plan.rungs.size())) return &plan.rungs[i];
    return &plan.rungs.front();
}

// One block per host (every RPC host in --rpc order, then this machine), one line per device it
// serves: what the plan puts there, its budget and its layers (issue 15: the user reads which
// machine is short, not only which RPCn device).
void writeHostTable(std::ostringstream& out, const Plan& plan) {
    const Rung* r = shownRung(plan);
    if (!r || plan.hardware.rpc_hosts.empty()) return;
    out << "Per host and device at " << formatTokens(r->requested_context)
        << " (GiB: weights, KV, compute, output, total / usable; layers):\n";
    const auto deviceLine = [&out, &plan, r](std::size_t i) {
        const DeviceUse& d = r->devices[i];
        const std::uint32_t layers =
            i < r->placement.device_layers.size() ? r->placement.device_layers[i] : 0;
        out << "    " << pad(shortDeviceName(plan, i).substr(0, 18), 19)
            << rpad(gib(d.terms.weights), 8) << rpad(gib(d.terms.kv()), 8)
            << rpad(gib(d.terms.compute), 8) << rpad(gib(d.terms.output), 7)
            << rpad(gib(d.bytes), 9) << " / "
            << pad(gib(static_cast<Bytes>(std::max<SignedBytes>(0, d.budget_bytes))), 8)
            << rpad(std::to_string(layers), 4) << " layers\n";
    };
    for (const auto& h : plan.hardware.rpc_hosts) {
        out << "  rpc " << h.endpoint << (h.label.empty() ? "" : " (" + h.label + ")");
        char link[96];
        std::snprintf(link, sizeof link, "  link %.3g GB/s, round trip %.3g ms", h.link_gbs,
                      h.rtt_ms);
        out << link << "\n";
        for (std::size_t i = 0; i < r->devices.size(); ++i)
            if (r->devices[i].rpc_endpoint == h.endpoint) deviceLine(i);
    }
    out << "  this machine (main host, llama-server)\n";
    for (std::size_t i = 0; i < r->devices.size(); ++i)
        if (r->devices[i].rpc_endpoint.empty()) deviceLine(i);
    out << "    " << pad("host RAM", 19) << rpad(gib(r->host.weights), 8)
        << rpad(gib(r->host.kv()), 8) << rpad(gib(r->host.compute), 8)
        << rpad(gib(r->host.output), 7) << rpad(gib(r->host_bytes), 9) << " / "
        << pad(plan.budget.uma
                   ? std::string("shared")
                   : gib(static_cast<Bytes>(std::max<SignedBytes>(0, r->host_budget_bytes))),
               8)
        << rpad(std::to_string(r->placement.host_layers), 4) << " layers\n";
}

void writeRpcServerLine(std::ostringstream& out, const RpcServerLaunch& l) {
    out << "On " << l.endpoint << (l.label.empty() ? "" : " (" + l.label + ")") << ":";
    for (const auto& a : l.argv)
        out << " " << a;
    out << "\n";
}

// One line per rung: the terms summed over every device and host memory, each device's and the
// host's share against its budget, and the speeds. A plan with a draft model (-md) has a column
// for it, so the terms still add up to the total.
void writeRungTable(std::ostringstream& out, const Plan& plan) {
    const bool draft = plan.options.draft.has_value();
    out << pad("context", 9) << pad("verdict", 10) << rpad("weights", 8) << rpad("KV", 8)
        << rpad("state", 7) << rpad("compute", 8) << rpad("output", 7) << rpad("ovh", 6)
        << (draft ? rpad("draft", 7) : std::string()) << rpad("total", 8) << "  ";
    for (std::size_t i = 0; i < plan.budget.devices.size(); ++i)
        out << rpad(shortDeviceName(plan, i).substr(0, 11) + " GiB", 16) << " ";
    out << rpad("host GiB", 14) << rpad("tok/s", 19) << rpad("pp/s", 21) << "\n";
    for (size_t i = 0; i < plan.rungs.size(); ++i) {
        const Rung& r = plan.rungs[i];
        const bool chosen = static_cast<int>(i) == plan.decision.rung_index;
        out << pad((chosen ? "*" : " ") + formatTokens(r.requested_context), 9)
            << pad(verdictName(r.verdict), 10) << rpad(gib(r.totals.weights), 8)
            << rpad(gib(r.totals.kv()), 8) << rpad(gib(r.totals.recurrent_state), 7)
            << rpad(gib(r.totals.compute), 8) << rpad(gib(r.totals.output), 7)
            << rpad(gib(r.totals.overhead), 6)
            << (draft ? rpad(gib(r.totals.draft), 7) : std::string())
            << rpad(gib(r.totals.total()), 8) << "  ";
        for (const auto& d : r.devices)
            out << rpad(gib(d.bytes) + "/" +
                            gib(static_cast<Bytes>(std::max<SignedBytes>(0, d.budget_bytes))),
                        16)
                << " ";
        out << rpad(gib(r.host_bytes) + (plan.budget.uma
                                             ? ""
                                             : "/" + gib(static_cast<Bytes>(std::max<SignedBytes>(
                                                         0, r.host_budget_bytes)))),
                    14)
            << rpad(tokRange(r.speed.decode_tok_s, r.speed.decode_low, r.speed.decode_high), 19)
            << rpad(tokRange(r.speed.prefill_tok_s, r.speed.prefill_low, r.speed.prefill_high), 21)
            << "\n";
    }
}

// Decode with the launch's drafter (policy/speculation.h), beside the target's own figure.
void writeSpeculation(std::ostringstream& out, const SpeculativeSpeed& s) {
    if (s.drafter.empty()) return;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "Speculative decoding (%s, up to %u drafted per step): %.2fx (%.2f-%.2fx) the "
                  "decode above, %s tok/s; ",
                  s.drafter == "mtp" ? "the MTP head" : s.drafter.c_str(), s.n_max, s.speedup,
                  s.speedup_low, s.speedup_high,
                  tokRange(s.decode_tok_s, s.decode_low, s.decode_high).c_str());
    out << buf << s.basis << "\n";
}

// What a running session would do at the launch window (Plan::growth): grow a rung once it
// fills 85 % of it, or stay and why.
void writeGrowth(std::ostringstream& out, const Plan& plan) {
    if (!plan.growth) return;
    const SessionGrowth& g = *plan.growth;
    if (g.next_window) {
        out << "Growth: at " << g.occupancy_tokens << " tokens (85 % of " << formatTokens(g.window)
            << ") an idle server would grow to " << formatTokens(*g.next_window)
            << " (the re-fit needs " << formatBytes(g.needed_bytes) << " of "
            << formatSignedBytes(g.available_bytes) << ")\n";
        return;
    }
    out << "Growth: the session stays at " << formatTokens(g.window) << " (" << g.action
        << "): " << g.reason << "\n";
}

// Why each refused rung is refused (every blocking reason, the terms, the re-planned remedies),
// and what would make a spilled one resident.
void writeWhy(std::ostringstream& out, const Plan& plan) {
    for (const auto& r : plan.rungs) {
        if (r.refusal) {
            const Refusal& f = *r.refusal;
            out << "\nWhy " << formatTokens(r.requested_context) << " is refused ["
                << refusalCodeName(f.code) << ", " << budgetName(f.budget) << "]: " << f.message
                << "\n";
            // Every reason that blocks the rung, not just the first.
            for (size_t i = 1; i < f.reasons.size(); ++i)
                out << "    also [" << refusalCodeName(f.reasons[i].code) << ", "
                    << budgetName(f.reasons[i].budget) << "]: " << f.reasons[i].message << "\n";
            if (f.needed_tokens > 0)
                out << "    needed " << f.needed_tokens << " tokens, trained " << f.available_tokens
                    << " tokens\n";
            for (const auto& t : f.terms)
                out << "    " << pad(t.label, 30) << rpad(formatBytes(t.bytes), 12) << "\n";
            for (const auto& rem : f.remedies)
                out << "    -> " << rem.label << ": saves " << formatSignedBytes(rem.saves_bytes)
                    << (rem.fixes                 ? " (fixes it)"
                        : rem.still_lacks.empty() ? std::string()
                                                  : " (still: " + rem.still_lacks + ")")
                    << "\n";
        } else if (r.verdict == Verdict::Spilled && !r.spill_remedies.empty()) {
            out << "\nWhy " << formatTokens(r.requested_context) << " spills: the GPU budget is "
                << formatBytes(r.placement.spill_bytes) << " short of holding every weight\n";
            for (const auto& rem : r.spill_remedies)
                out << "    -> " << rem.label << ": saves " << formatSignedBytes(rem.saves_bytes)
                    << " of VRAM" << (rem.fixes ? " (resident then)" : "") << "\n";
        }
    }
}

} // namespace

std::string formatPlanTable(const Plan& plan) {
    std::ostringstream out;
    const ModelShape& m = plan.model;
    out << m.name << (m.quant.empty() ? "" : " " + m.quant) << "  [" << m.architecture << ", "
        << m.nLayer() << " layers"
        << (m.isMoe() ? ", MoE " + std::to_string(m.moe.n_expert_used) + "/" +
                            std::to_string(m.moe.n_expert)
                      : "")
        << ", weights " << formatBytes(m.weightBytes()) << ", native "
        << formatTokens(m.n_ctx_train) << ", " << shapeSourceName(m.source) << "]\n";
    out << "Hardware: ";
    if (plan.budget.devices.empty()) out << "CPU only";
    for (size_t i = 0; i < plan.budget.devices.size(); ++i) {
        const auto& d = plan.budget.devices[i];
        // As in the JSON: a budget below nothing is no room, not a negative size.
        out << (i ? ", " : "") << d.name << " " << formatBytes(d.total) << " (usable "
            << formatBytes(nonNegative(d.usable)) << ")";
    }
    out << (plan.budget.uma ? " unified" : "") << " | RAM " << formatBytes(plan.hardware.ram_total)
        << (plan.budget.uma ? ""
                            : " (usable " + formatBytes(nonNegative(plan.budget.ram_usable)) + ")")
        << "\n";
    out << "Options: -ctk " << ggmlTypeName(plan.options.cache_type_k) << " -ctv "
        << ggmlTypeName(plan.options.cache_type_v) << " -fa " << (plan.flash_attn ? "on" : "off")
        << " -np " << plan.options.n_parallel << (plan.options.kv_unified ? " -kvu" : "")
        << (plan.options.swa_full ? " --swa-full" : "") << " backend " << backendName(plan.backend)
        << (plan.mtp ? " MTP on" : "")
        << (plan.options.draft && plan.options.draft->model
                ? " draft " + plan.options.draft->model->id + " (--spec-draft-n-max " +
                      std::to_string(plan.options.draft->n_max) + ")"
                : std::string())
        << "\n\n";

    writeRungTable(out, plan);
    out << "(GiB; * = launch window; context is the -c value, llama.cpp pads it to "
        << "256; speeds are estimates with their expected range, at a full context)\n";
    if (plan.decision.rung_index >= 0 &&
        plan.decision.rung_index < static_cast<int>(plan.rungs.size())) {
        const Speed& sp = plan.rungs[plan.decision.rung_index].speed;
        if (!sp.decode_basis.empty()) out << "Decode basis: " << sp.decode_basis << "\n";
        if (!sp.prefill_basis.empty()) out << "Prefill basis: " << sp.prefill_basis << "\n";
        if (sp.network_crossings > 0) {
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "Network (in the speeds above): %.2f ms per decoded token (%.0f %% of "
                          "decode), %.3f ms per prompt token (%.0f %% of prefill); ",
                          sp.network_decode_ms, sp.network_decode_share * 100,
                          sp.network_prefill_ms, sp.network_prefill_share * 100);
            out << buf << sp.network_basis << "\n";
        }
        writeSpeculation(out, sp.speculative);
    }
    out << "\n";
    writeHostTable(out, plan);
    if (!plan.hardware.rpc_hosts.empty()) out << "\n";

    const Decision& d = plan.decision;
    if (d.refused) {
        out << "Decision: REFUSED";
    } else {
        out << "Decision: " << formatTokens(plan.rungs[d.rung_index].requested_context) << " "
            << (d.spilled ? "spilled (" + formatBytes(d.spill_bytes) + " of weights in RAM)"
                          : "resident")
            << ", " << postureName(d.posture) << " posture";
    }
    out << "\n";
    if (!d.refused && d.rung_index >= 0) {
        const Placement& p = plan.rungs[d.rung_index].placement;
        if (!p.device_layers.empty()) {
            out << "Placement" << (p.pinned ? " (yours, as given)" : "") << ": ";
            for (size_t i = 0; i < p.device_layers.size(); ++i)
                out << (i ? ", " : "") << plan.budget.devices[i].name << " " << p.device_layers[i]
                    << " layers";
            out << ", CPU " << p.host_layers << " layers (of " << m.nLayer() + 1
                << " with the output)\n";
        }
        if (const auto& dr = plan.rungs[d.rung_index].draft) {
            out << "Draft model: " << dr->model_id << ", -ngld " << dr->gpu_layers << ", "
                << formatBytes(dr->total()) << " (";
            for (size_t i = 0; i < dr->devices.size(); ++i)
                out << plan.budget.devices[i].name << " " << formatBytes(dr->devices[i].total())
                    << ", ";
            out << "host " << formatBytes(dr->host.total()) << ") at n_ctx " << dr->context << "\n";
        }
    }
    for (const auto& why : d.reasons)
        out << "  - " << why << "\n";
    writeGrowth(out, plan);
    if (!plan.launch && !plan.hardware.rpc_hosts.empty()) {
        // Every rung refused: no llama-server line, but the servers each host must run do not
        // depend on the fit (host, port, devices, cache), so the user can still start them and
        // re-plan with --probe against what they really serve.
        LaunchConfig servers;
        for (const auto& h : plan.hardware.rpc_hosts)
            servers.rpc_servers.push_back(h.endpoint);
        out << "No launch (every context is refused); the RPC servers it would use:\n";
        for (const auto& l : rpcServerLaunches(plan.hardware, servers))
            writeRpcServerLine(out, l);
    }
    if (plan.launch) {
        // Each RPC host first: llama-server connects to them at start-up (issue 15).
        for (const auto& l : rpcServerLaunches(plan.hardware, *plan.launch))
            writeRpcServerLine(out, l);
        out << "Launch: llama-server -m MODEL.gguf";
        for (const auto& a : llamaServerArgs(*plan.launch))
            out << " " << (a.find_first_of("\\|()* ") != std::string::npos ? "'" + a + "'" : a);
        out << "\n";
    }
    writeWhy(out, plan);
    if (!plan.notes.empty() || !m.notes.empty()) out << "\nNotes:\n";
    for (const auto& n : m.notes)
        out << "  - " << n << "\n";
    for (const auto& n : plan.notes)
        out << "  - " << n << "\n";
    return out.str();
}

std::string formatModelSet(const ModelSet& set) {
    std::ostringstream out;
    const Plan& first = set.plans.front();
    out << set.plans.size() << " models on " << first.hardware.label
        << ", priced together (one llama-server each):\n";
    for (size_t k = 0; k < set.plans.size(); ++k) {
        const Plan& p = set.plans[k];
        out << "  " << k + 1 << ". " << pad(p.model.name.empty() ? p.model.id : p.model.name, 34);
        if (!p.launch || p.decision.rung_index < 0) {
            out << " does not run\n";
            continue;
        }
        const Rung& r = p.rungs[static_cast<size_t>(p.decision.rung_index)];
        out << " -c " << pad(std::to_string(r.requested_context), 8) << " "
            << pad(verdictName(r.verdict), 9);
        for (size_t d = 0; d < r.devices.size(); ++d)
            out << "  " << shortDeviceName(p, d) << " " << gib(r.devices[d].bytes) << " GiB";
        out << "  RAM " << gib(r.host_bytes) << " GiB\n";
    }
    out << "Together (GiB used / usable):";
    for (size_t d = 0; d < set.devices.size(); ++d)
        out << (d ? "," : "") << " " << shortDeviceName(first, d) << " "
            << gib(set.devices[d].bytes) << " / "
            << gib(static_cast<Bytes>(std::max<SignedBytes>(0, set.devices[d].usable)));
    if (!first.budget.uma)
        out << (set.devices.empty() ? " " : ", ") << "RAM " << gib(set.host.bytes) << " / "
            << gib(static_cast<Bytes>(std::max<SignedBytes>(0, set.host.usable)));
    out << "\n"
        << (set.resident ? "The set fits with every model resident.\n"
            : set.fits   ? "The set fits, with part of a model in system RAM.\n"
                         : "The set does not fit: " + set.blocked_why + "\n");
    for (size_t k = 0; k < set.plans.size(); ++k) {
        const Plan& p = set.plans[k];
        if (!p.launch || !set.fits) continue;
        out << "Launch " << k + 1 << ": llama-server -m MODEL" << k + 1 << ".gguf";
        for (const auto& a : llamaServerArgs(*p.launch))
            out << " " << (a.find_first_of("\\|()* ") != std::string::npos ? "'" + a + "'" : a);
        out << "\n";
    }
    out << "\nNotes:\n";
    for (const auto& n : set.notes)
        out << "  - " << n << "\n";
    out << "  - --json gives every member's whole plan (rungs, refusals, remedies), each priced "
           "beside the ones before it\n";
    return out.str();
}

} // namespace headroom::cli
