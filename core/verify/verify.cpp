#include "verify/verify.h"

#include <algorithm>
#include <cstdio>

namespace headroom {

namespace {

// "Vulkan10" sorts after "Vulkan9": the backend's prefix, then the device number.
bool deviceOrder(const std::string& a, const std::string& b) {
    auto split = [](const std::string& s) {
        std::size_t i = s.size();
        while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            --i;
        const long n = i < s.size() ? std::strtol(s.c_str() + i, nullptr, 10) : -1;
        return std::make_pair(s.substr(0, i), n);
    };
    return split(a) < split(b);
}

DeviceCheck check(const std::string& llama_name, const std::string& plan_name, bool host,
                  const Terms* planned, const std::vector<const LoggedBuffer*>& measured) {
    DeviceCheck d{llama_name, plan_name, host, {}, {}, std::nullopt};
    LoggedBuffer sum;
    for (const auto* b : measured) {
        d.buffers.push_back(b->name);
        sum.model = satAdd(sum.model, b->model);
        sum.kv = satAdd(sum.kv, b->kv);
        sum.rs = satAdd(sum.rs, b->rs);
        sum.output = satAdd(sum.output, b->output);
        sum.compute = satAdd(sum.compute, b->compute);
    }
    const Terms none;
    const Terms& p = planned ? *planned : none;
    auto add = [&](const char* term, Bytes pl, Bytes me, bool exact) {
        TermCheck t{term, pl, me, exact, true};
        const SignedBytes diff = t.difference();
        if (exact)
            t.agrees = diff <= toSigned(kLogRoundingBytes) && -diff <= toSigned(kLogRoundingBytes);
        d.terms.push_back(t);
    };
    // The projector (libmtmd) prints no buffer line of its own kind: it is not compared.
    add("weights", p.weights, sum.model, true);
    add("kv", p.kv(), sum.kv, true);
    add("recurrent_state", p.recurrent_state, sum.rs, true);
    add("output", p.output, sum.output, true);
    add("compute", p.compute, sum.compute, false);
    return d;
}

std::string mib(SignedBytes b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(b) / static_cast<double>(MiB));
    return buf;
}

} // namespace

VerifyReport compareWithPlan(const Plan& plan, const Rung& rung, const ServerLog& log,
                             const std::string& model_file) {
    VerifyReport r;
    r.llama_build = log.build;
    r.context = rung.context;

    std::vector<std::string> device_names;
    std::vector<const LoggedBuffer*> host_buffers;
    for (const auto& b : log.buffers) {
        const std::string dev = deviceOfBuffer(b.name);
        if (dev.empty())
            host_buffers.push_back(&b);
        else if (std::find(device_names.begin(), device_names.end(), dev) == device_names.end())
            device_names.push_back(dev);
    }
    std::sort(device_names.begin(), device_names.end(), deviceOrder);
    // The plan's GPU i is llama.cpp's i-th device (llama_model_load: devices in registry order,
    // which is the order -ts and the plan's devices use).
    const std::size_t n = std::max(device_names.size(), rung.devices.size());
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<const LoggedBuffer*> bufs;
        const std::string llama_name =
            i < device_names.size() ? device_names[i] : "GPU" + std::to_string(i) + " (no buffers)";
        for (const auto& b : log.buffers)
            if (i < device_names.size() && deviceOfBuffer(b.name) == device_names[i])
                bufs.push_back(&b);
        const Terms* planned = i < rung.devices.size() ? &rung.devices[i].terms : nullptr;
        DeviceCheck d =
            check(llama_name, planned ? rung.devices[i].name : std::string("(not in the plan)"),
                  false, planned, bufs);
        for (const auto& m : log.breakdown)
            if (m.name == llama_name) d.unaccounted = m.unaccounted;
        r.devices.push_back(std::move(d));
    }
    r.devices.push_back(check("host", "host", true, &rung.host, host_buffers));

    Calibration& c = r.calibration;
    c.llama_build = log.build;
    c.backend = backendName(plan.backend);
    c.model = model_file.substr(model_file.find_last_of('/') + 1);
    c.context = rung.context;
    c.device_compute_factor = 1.0;
    bool any_device = false;
    for (const auto& d : r.devices) {
        for (const auto& t : d.terms) {
            if (t.exact_term && !t.agrees) r.exact_terms_agree = false;
            if (t.term != "compute" || t.planned == 0) continue;
            const double f = static_cast<double>(t.measured) / static_cast<double>(t.planned);
            if (d.host) {
                c.host_compute_factor = f;
            } else {
                c.device_compute_factor = any_device ? std::max(c.device_compute_factor, f) : f;
                any_device = true;
            }
        }
        if (!d.host && d.unaccounted && *d.unaccounted > 0)
            c.device_overhead_bytes =
                std::max(c.device_overhead_bytes, static_cast<Bytes>(*d.unaccounted));
    }
    return r;
}

nlohmann::json verifyReportToJson(const VerifyReport& r, const std::vector<std::string>& argv) {
    using nlohmann::json;
    json devices = json::array();
    for (const auto& d : r.devices) {
        json terms = json::object();
        for (const auto& t : d.terms)
            terms[t.term] = {{"planned_bytes", t.planned},
                             {"measured_bytes", t.measured},
                             {"difference_bytes", t.difference()},
                             {"exact_term", t.exact_term},
                             {"agrees", t.agrees}};
        devices.push_back({{"llama_name", d.llama_name},
                           {"plan_name", d.plan_name},
                           {"host", d.host},
                           {"buffers", d.buffers},
                           {"terms", terms},
                           {"unaccounted_bytes", d.unaccounted ? json(*d.unaccounted) : json()}});
    }
    const Calibration& c = r.calibration;
    return {{"schema", "headroom.verify/1"},
            {"llama_build", r.llama_build},
            {"argv", argv},
            {"context", r.context},
            {"log_rounding_bytes", kLogRoundingBytes},
            {"exact_terms_agree", r.exact_terms_agree},
            {"devices", devices},
            {"calibration",
             {{"llama_build", c.llama_build},
              {"backend", c.backend},
              {"model", c.model},
              {"context", c.context},
              {"device_compute_factor", c.device_compute_factor},
              {"host_compute_factor", c.host_compute_factor},
              {"device_overhead_bytes", c.device_overhead_bytes}}}};
}

std::string formatVerifyReport(const VerifyReport& r) {
    std::string out = "llama.cpp build " + (r.llama_build.empty() ? "unknown" : r.llama_build) +
                      ", context " + std::to_string(r.context) +
                      " (MiB; exact terms agree within the log's 0.01 MiB)\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-22s %-16s %14s %14s %12s  %s\n", "device", "term",
                  "planned", "measured", "difference", "");
    out += line;
    for (const auto& d : r.devices) {
        const std::string who = d.host ? "host" : d.llama_name + " = " + d.plan_name;
        bool first = true;
        for (const auto& t : d.terms) {
            if (t.planned == 0 && t.measured == 0) continue;
            const std::string verdict = !t.exact_term ? "estimate"
                                        : t.agrees    ? "exact"
                                                      : "MISMATCH";
            std::snprintf(line, sizeof line, "%-22.22s %-16s %14s %14s %12s  %s\n",
                          first ? who.c_str() : "", t.term.c_str(),
                          mib(toSigned(t.planned)).c_str(), mib(toSigned(t.measured)).c_str(),
                          mib(t.difference()).c_str(), verdict.c_str());
            out += line;
            first = false;
        }
        if (d.unaccounted) {
            std::snprintf(line, sizeof line, "%-22s %-16s %14s %14s %12s  %s\n", "", "unaccounted",
                          "", mib(*d.unaccounted).c_str(), "", "runtime overhead");
            out += line;
        }
    }
    const Calibration& c = r.calibration;
    std::snprintf(line, sizeof line,
                  "\ncalibration: compute x%.3f on GPUs, x%.3f in host memory; runtime overhead "
                  "%s MiB per GPU\n",
                  c.device_compute_factor, c.host_compute_factor,
                  mib(toSigned(c.device_overhead_bytes)).c_str());
    out += line;
    out += r.exact_terms_agree ? "weights, KV, recurrent state and output: as planned\n"
                               : "weights, KV, recurrent state or output DIFFER from the plan\n";
    return out;
}

} // namespace headroom
