// The speed model against published llama-bench results (issue 11): the data set
// tests/speed/llama_bench_published.csv is split by a hash of each row id into a fit part and a
// held-out part; the committed constants (policy/speed_constants.h) are scored on the held-out
// rows and must meet the accuracy goal, and a refit on the fit rows must not beat them by much
// (so the committed constants are the fit of today's data, not a stale one). The accuracy table
// goes to <build>/docs/speed-accuracy.md; docs/speed-accuracy.md is a committed copy.
//
// HEADROOM_SPEED_FIT=1 prints a fresh fit in the header's format (how the constants were made).
#include "catalog.h"
#include "gpu_specs.h"
#include "policy/speed.h"
#include "policy/speed_constants.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

using namespace headroom;
using namespace headroom::policy;

namespace {

struct Row {
    std::string id, source, gpu;
    int n_gpu = 1;
    std::string backend, build, model_id, quant;
    double size_gib = 0;
    int ngl = 99, n_cpu_moe = 0;
    std::string fa;
    std::uint32_t ubatch = 0;
    bool decode = false; // tg (else pp)
    std::uint32_t n_tokens = 0, depth = 0;
    double tok_s = 0;
    double host_gbs = 0, cpu_tflops = 0; // the host of CPU-only and partial-offload rows
    std::string note;
    bool held_out = false;
};

std::string dataPath() {
    return HEADROOM_SPEED_DATA;
}

std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : line) {
        if (c == ',') {
            f.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    f.push_back(cur);
    return f;
}

// FNV-1a 64: a fixed, platform-independent hash, so the split never moves.
std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// One row in three is held out of the fit.
bool heldOut(const std::string& id) {
    return fnv1a(id) % 3 == 0;
}

std::vector<Row> loadRows() {
    std::ifstream in(dataPath());
    if (!in) qFatal("cannot read %s", dataPath().c_str());
    std::vector<Row> rows;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const auto f = splitCsv(line);
        if (f.size() < 19) qFatal("short row: %s", line.c_str());
        Row r;
        r.id = f[0];
        r.source = f[1];
        r.gpu = f[2];
        r.n_gpu = std::stoi(f[3]);
        r.backend = f[4];
        r.build = f[5];
        r.model_id = f[6];
        r.quant = f[7];
        r.size_gib = std::stod(f[8]);
        r.ngl = std::stoi(f[9]);
        r.n_cpu_moe = std::stoi(f[10]);
        r.fa = f[11];
        r.ubatch = f[12].empty() ? 0 : static_cast<std::uint32_t>(std::stoul(f[12]));
        r.decode = f[13] == "tg";
        r.n_tokens = static_cast<std::uint32_t>(std::stoul(f[14]));
        r.depth = static_cast<std::uint32_t>(std::stoul(f[15]));
        r.tok_s = std::stod(f[16]);
        r.host_gbs = f[17].empty() ? 0 : std::stod(f[17]);
        r.cpu_tflops = f[18].empty() ? 0 : std::stod(f[18]);
        r.note = f.size() > 19 ? f[19] : "";
        r.held_out = heldOut(r.id);
        rows.push_back(r);
    }
    return rows;
}

const Catalog& catalog() {
    static const Catalog c = [] {
        auto r = loadBuiltinCatalog();
        if (!r) qFatal("catalog: %s", r.error().message.c_str());
        return *r;
    }();
    return c;
}

// The catalog shape of a row's model.
ModelShape shapeOf(const Row& r) {
    auto shape = catalog().shape(r.model_id);
    if (!shape) qFatal("row %s: %s", r.id.c_str(), shape.error().message.c_str());
    return *shape;
}

// The row's model size in bytes: its own figure, else the catalog's file size at its quant.
double sizeBytes(const Row& r, const ModelShape& m) {
    if (r.size_gib > 0) return r.size_gib * 1073741824.0;
    const CatalogEntry* e = catalog().find(r.model_id);
    const CatalogQuant* q = e ? e->findQuant(r.quant) : nullptr;
    if (!q) qFatal("row %s: no size and no catalog quant %s", r.id.c_str(), r.quant.c_str());
    (void)m;
    return static_cast<double>(q->file_bytes);
}

// The work of one row, placed the way llama.cpp places it. The catalog shape gives the structure
// (layers, experts, attention), the row's model size gives the bytes (every tensor scaled by
// size / the shape's weight bytes). -ngl N offloads the last N repeating layers and, once N exceeds
// them, the output head (llama.cpp llama_model::load_tensors, i_gpu_start = n_layer -
// n_gpu_layers);
// --n-cpu-moe N keeps the routed experts of layers 0..N-1 in host memory (common/arg.cpp,
// llm_ffn_exps_block_regex); n_gpu 0 runs everything on the CPU. A layer's KV cache sits with
// the layer. GPU layers split evenly over n_gpu.
SpeedWork workFor(const Row& r) {
    const ModelShape m = shapeOf(r);
    const bool cpuOnly = r.n_gpu == 0;
    std::optional<GpuSpec> spec;
    if (!cpuOnly) {
        spec = gpuSpecByName(r.gpu);
        if (!spec) qFatal("row %s: GPU '%s' is not in the GPU table", r.id.c_str(), r.gpu.c_str());
    }
    const double scale = sizeBytes(r, m) / static_cast<double>(m.weightBytes());
    const double used = m.isMoe() && m.moe.n_expert > 0
                            ? static_cast<double>(m.moe.n_expert_used) / m.moe.n_expert
                            : 1.0;
    // tg n at depth d: the tokens see d … d + n, on average d + n / 2.
    const std::uint32_t kv_depth = r.decode ? r.depth + r.n_tokens / 2 : r.depth;
    std::vector<const LayerShape*> layers;
    for (const auto& l : m.layers)
        if (!l.is_mtp) layers.push_back(&l);
    const int n = static_cast<int>(layers.size());
    // On unified memory the data set's -ngl 1 rows are 2023 Metal builds, which ran the whole
    // graph on the GPU for any -ngl >= 1 (ggml-metal then had no per-layer split).
    const int ngl = spec && spec->uma && r.ngl > 0 ? n + 1 : r.ngl;
    const int gpuFrom = cpuOnly ? n : std::max(0, n - ngl);
    // KV bytes of one layer at the depth (the model-wide figure split by layer share).
    ModelShape one = m;
    double devRead = 0, devResident = 0, hostRead = 0, hostResident = 0;
    for (int i = 0; i < n; ++i) {
        const LayerShape& l = *layers[i];
        one.layers = {l};
        const double kv = static_cast<double>(kvReadBytesAtDepth(one, kv_depth));
        const double dense = (l.attn_bytes + l.ffn_bytes) * scale;
        const double experts = l.experts_bytes * scale;
        const bool onGpu = i >= gpuFrom;
        const bool expertsOnHost = !onGpu || i < r.n_cpu_moe;
        (onGpu ? devRead : hostRead) += dense + kv;
        (onGpu ? devResident : hostResident) += dense;
        (expertsOnHost ? hostRead : devRead) += experts * used;
        (expertsOnHost ? hostResident : devResident) += experts;
    }
    const double output = m.output_bytes * scale;
    const bool outputOnGpu = !cpuOnly && ngl > n;
    (outputOnGpu ? devRead : hostRead) += output;
    (outputOnGpu ? devResident : hostResident) += output;

    SpeedWork w;
    w.backend = cpuOnly ? "cpu" : r.backend;
    if (spec) {
        w.arch = spec->arch;
        w.uma = spec->uma;
        for (int i = 0; i < r.n_gpu; ++i) {
            SpeedDevice d;
            d.name = spec->model;
            d.bandwidth_gbs = spec->bandwidth_gbs;
            d.fp16_tflops = spec->fp16_tflops;
            d.vector_tflops = spec->vector_tflops;
            d.read_bytes = static_cast<Bytes>(devRead / r.n_gpu);
            d.resident_bytes = static_cast<Bytes>(devResident / r.n_gpu);
            w.devices.push_back(d);
        }
        if (spec->pcie_gen > 0) w.pcie_gbs = pcieGbs(spec->pcie_gen, spec->pcie_width);
    }
    w.host_read_bytes = static_cast<Bytes>(hostRead);
    w.host_bandwidth_gbs = r.host_gbs;
    w.host_tflops = r.cpu_tflops;
    // Host weights a GPU copies per prefill ubatch (the CPU-resident tensors the scheduler
    // offloads for large batches); on a CPU-only run nothing is copied.
    if (!cpuOnly && !w.uma) w.host_streamed_bytes = static_cast<Bytes>(hostResident);
    w.n_layer = m.nLayer();
    w.n_moe_layer = m.isMoe() ? m.nMoeLayers() : 0;
    w.f16_weights = r.quant == "F16" || r.quant == "BF16";
    w.active_params = activeParamsPerToken(m);
    fillAttention(w, m);
    w.depth = r.depth;
    w.n_ubatch = r.ubatch ? r.ubatch : 512;
    w.n_prompt = r.decode ? 1 : r.n_tokens;
    return w;
}

// workFor of a data-set row, built once (the fit evaluates every row many times).
const SpeedWork& workOf(const Row& r) {
    static std::map<std::string, SpeedWork> cache;
    const std::string key = r.id + (r.decode ? ":tg" : ":pp");
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, workFor(r)).first;
    return it->second;
}

double predict(const Row& r, const SpeedModelConstants& c) {
    const SpeedWork w = r.id.empty() ? workFor(r) : workOf(r);
    return r.decode ? modelDecodeTokS(w, c) : modelPrefillTokS(w, c);
}

std::string classOf(const Row& r) {
    if (r.n_gpu == 0) return "cpu";
    return speedClassKey(r.backend, gpuSpecByName(r.gpu)->uma);
}

// A row with weights in host memory next to a GPU (-ngl below the layer count, --n-cpu-moe).
bool partialOffload(const Row& r) {
    if (r.n_gpu == 0 || gpuSpecByName(r.gpu)->uma) return false;
    return r.n_cpu_moe > 0 || r.ngl < static_cast<int>(shapeOf(r).nLayer());
}

// ---- fit --------------------------------------------------------------------------------------

// Pointers to the fitted numbers, with the prior each is pulled towards (a weak ridge in log
// space keeps a class with three rows from fitting noise).
struct Param {
    double* p;
    double prior;
    bool decode; // which objective it belongs to
};

std::vector<Param> params(SpeedModelConstants& c) {
    std::vector<Param> v;
    for (auto& k : c.classes) {
        v.push_back({&k.bw_fraction, 0.7, true});
        v.push_back({&k.us_per_layer, 5.0, true});
        v.push_back({&k.flops_fraction, 0.3, false});
    }
    v.push_back({&c.global.moe_us_per_layer, 5.0, true});
    v.push_back({&c.global.host_bw_fraction, 0.6, true});
    v.push_back({&c.global.pcie_fraction, 0.6, false});
    v.push_back({&c.global.f16_factor, 1.0, false});
    v.push_back({&c.global.moe_pp_factor, 1.5, false});
    return v;
}

constexpr double kRidge = 0.05;

double loss(const std::vector<Row>& rows, const SpeedModelConstants& c, bool decode) {
    double s = 0;
    for (const auto& r : rows) {
        if (r.held_out || r.decode != decode) continue;
        const double e = std::log(predict(r, c) / r.tok_s);
        s += e * e;
    }
    return s;
}

double penalised(const std::vector<Row>& rows, SpeedModelConstants& c, bool decode) {
    double s = loss(rows, c, decode);
    for (const auto& p : params(c)) {
        if (p.decode != decode) continue;
        const double e = std::log(*p.p / p.prior);
        s += kRidge * e * e;
    }
    return s;
}

int rowsOf(const std::vector<Row>& rows, const std::string& key, bool decode) {
    int n = 0;
    for (const auto& r : rows)
        if (!r.held_out && r.decode == decode && classOf(r) == key) ++n;
    return n;
}

// Band of measured / predicted on the fit rows of one class: about the 5th and 95th percentile,
// widened 20 % each side (the fit rows flatter the model), and always containing 1.
std::pair<double, double> band(const std::vector<Row>& rows, const SpeedModelConstants& c,
                               const std::string& key, bool decode) {
    std::vector<double> q;
    for (const auto& r : rows)
        if (!r.held_out && r.decode == decode && classOf(r) == key)
            q.push_back(r.tok_s / predict(r, c));
    if (q.size() < 3) return {decode ? 0.8 : 0.6, decode ? 1.25 : 1.7};
    std::sort(q.begin(), q.end());
    const auto at = [&](double f) {
        return q[static_cast<std::size_t>(std::lround(f * (q.size() - 1)))];
    };
    return {std::min(1.0, at(0.05)) / 1.2, std::max(1.0, at(0.95)) * 1.2};
}

// Coordinate descent in log space from the priors.
SpeedModelConstants fit(const std::vector<Row>& rows) {
    SpeedModelConstants c = fittedSpeedConstants();
    for (auto& p : params(c))
        *p.p = p.prior;
    for (bool decode : {true, false}) {
        double step = 1.5;
        double best = penalised(rows, c, decode);
        for (int it = 0; it < 400 && step > 1.0005; ++it) {
            bool moved = false;
            for (auto& p : params(c)) {
                if (p.decode != decode) continue;
                for (double f : {step, 1 / step}) {
                    const double old = *p.p;
                    *p.p = old * f;
                    const double l = penalised(rows, c, decode);
                    if (l < best - 1e-12) {
                        best = l;
                        moved = true;
                    } else {
                        *p.p = old;
                    }
                }
            }
            if (!moved) step = std::sqrt(step);
        }
    }
    for (auto& k : c.classes) {
        std::tie(k.decode_low, k.decode_high) = band(rows, c, k.key, true);
        std::tie(k.prefill_low, k.prefill_high) = band(rows, c, k.key, false);
        k.decode_rows = rowsOf(rows, k.key, true);
        k.prefill_rows = rowsOf(rows, k.key, false);
    }
    return c;
}

std::string header(const SpeedModelConstants& c) {
    std::string s;
    char b[256];
    for (const auto& k : c.classes) {
        std::snprintf(b, sizeof b,
                      "        {\"%s\",%*s%.4f, %7.3f, %.4f, %.3f, %.3f, %.3f, %.3f, %d, %d},\n",
                      k.key, static_cast<int>(10 - std::string(k.key).size()), "", k.bw_fraction,
                      k.us_per_layer, k.flops_fraction, k.decode_low, k.decode_high, k.prefill_low,
                      k.prefill_high, k.decode_rows, k.prefill_rows);
        s += b;
    }
    std::snprintf(b, sizeof b, "    {%.4f, %.4f, %.3f, %.2f, %.2f, %.2f},\n", c.global.f16_factor,
                  c.global.moe_pp_factor, c.global.moe_us_per_layer, c.global.host_bw_fraction,
                  c.global.pcie_fraction, c.global.cpu_flops_fraction);
    return s + b;
}

// ---- scoring ------------------------------------------------------------------------------------

struct Score {
    int n = 0;
    double median = 0, worst = 1; // predicted / measured; worst = furthest from 1 (either way)
    double within15 = 0, within2 = 0, inRange = 0;
};

Score score(const std::vector<const Row*>& rs, const SpeedModelConstants& c) {
    Score s;
    std::vector<double> ratios;
    int w15 = 0, w2 = 0, in = 0;
    for (const Row* r : rs) {
        const SpeedWork& w = workOf(*r);
        const SpeedFigure f = r->decode ? estimateDecode(w, c) : estimatePrefill(w, c);
        const double q = f.tok_s / r->tok_s;
        ratios.push_back(q);
        const double off = std::max(q, 1 / q);
        if (off <= 1.5) ++w15;
        if (off <= 2.0) ++w2;
        if (r->tok_s >= f.low && r->tok_s <= f.high) ++in;
        if (off > std::max(s.worst, 1 / s.worst)) s.worst = q;
    }
    s.n = static_cast<int>(rs.size());
    if (s.n == 0) return s;
    std::sort(ratios.begin(), ratios.end());
    s.median = s.n % 2 ? ratios[s.n / 2] : (ratios[s.n / 2 - 1] + ratios[s.n / 2]) / 2;
    s.within15 = double(w15) / s.n;
    s.within2 = double(w2) / s.n;
    s.inRange = double(in) / s.n;
    return s;
}

std::string fmtScore(const std::string& group, const Score& s) {
    char b[256];
    std::snprintf(b, sizeof b, "| %s | %d | %.2f | %.2f | %.0f %% | %.0f %% | %.0f %% |\n",
                  group.c_str(), s.n, s.median, s.worst, 100 * s.within15, 100 * s.within2,
                  100 * s.inRange);
    return b;
}

std::string groupTable(const std::vector<Row>& rows, const SpeedModelConstants& c, bool held,
                       bool decode) {
    std::map<std::string, std::vector<const Row*>> groups;
    std::vector<const Row*> all;
    for (const auto& r : rows) {
        if (r.held_out != held || r.decode != decode) continue;
        all.push_back(&r);
        groups["class " + classOf(r)].push_back(&r);
        const bool moe = shapeOf(r).isMoe();
        groups[moe ? "MoE" : "dense"].push_back(&r);
        groups[r.depth > 0 ? "at depth > 0" : "empty cache"].push_back(&r);
        if (r.quant == "F16") groups["F16 weights"].push_back(&r);
        if (r.n_gpu > 1) groups["several GPUs"].push_back(&r);
        if (r.n_gpu == 0) groups["CPU only"].push_back(&r);
        if (partialOffload(r)) groups["partial offload (-ngl < layers, --n-cpu-moe)"].push_back(&r);
    }
    std::string t =
        "| group | rows | median predicted/measured | worst | within ×1.5 | within ×2 | "
        "measured inside the range |\n|---|---:|---:|---:|---:|---:|---:|\n";
    t += fmtScore("**all**", score(all, c));
    for (const auto& [g, rs] : groups)
        t += fmtScore(g, score(rs, c));
    return t;
}

std::string accuracyDoc(const std::vector<Row>& rows, const SpeedModelConstants& c) {
    int fit = 0, held = 0;
    std::map<std::string, int> byClass;
    for (const auto& r : rows) {
        (r.held_out ? held : fit)++;
        byClass[classOf(r)]++;
    }
    std::string d =
        "# Speed accuracy\n\n"
        "Generated by `tests/core/test_speed_accuracy.cpp` (ctest `test_speed_accuracy`); do not "
        "edit by hand. The speed model (`core/policy/speed.h`) is scored against published "
        "llama-bench results collected in `tests/speed/llama_bench_published.csv`, every row "
        "with its source address. Rows are split by a hash of their id: " +
        std::to_string(fit) + " rows fit the constants (`core/policy/speed_constants.h`), " +
        std::to_string(held) +
        " rows are held out and scored here. Ratio = predicted / measured tok/s; worst = the "
        "ratio furthest from 1; range = the low-high band the plan shows.\n\n"
        "Goal (issue 11), on held-out rows: decode median 0.85-1.15 and 90 % within x1.5; "
        "prefill median 0.75-1.33 and 80 % within x2; no row off by more than x3; the measured "
        "value inside the shown range for at least 80 % of rows.\n\n"
        "Rows per backend/GPU class (all):";
    for (const auto& [k, n] : byClass)
        d += " " + k + " " + std::to_string(n) + ";";
    d += "\n\n## Decode (tg), held-out rows\n\n" + groupTable(rows, c, true, true) +
         "\n## Prefill (pp), held-out rows\n\n" + groupTable(rows, c, true, false) +
         "\n## Decode (tg), fit rows\n\n" + groupTable(rows, c, false, true) +
         "\n## Prefill (pp), fit rows\n\n" + groupTable(rows, c, false, false) +
         "\n## Held-out rows\n\n| id | GPU | backend | model | quant | test | depth | measured | "
         "predicted | range |\n|---|---|---|---|---|---|---:|---:|---:|---|\n";
    for (const auto& r : rows) {
        if (!r.held_out) continue;
        const SpeedWork& w = workOf(r);
        const SpeedFigure f = r.decode ? estimateDecode(w, c) : estimatePrefill(w, c);
        char b[512];
        std::snprintf(
            b, sizeof b, "| %s | %s | %s | %s | %s | %s%u | %u | %.1f | %.1f | %.1f-%.1f |\n",
            r.id.c_str(), r.gpu.c_str(), r.backend.c_str(), r.model_id.c_str(), r.quant.c_str(),
            r.decode ? "tg" : "pp", r.n_tokens, r.depth, r.tok_s, f.tok_s, f.low, f.high);
        d += b;
    }
    d += "\n## Known gaps\n\nCPU-only rows cover decode on three hosts (Haswell laptop, Raspberry "
         "Pi 5, 12-channel EPYC) and prefill on two; "
         "partial-offload rows (`-ngl` < layers, `--n-cpu-moe`) are decode only, from one host "
         "(RTX 2080 + quad-channel DDR4), measured through llama-server rather than llama-bench. "
         "The per-ubatch PCIe copy of host weights (prefill with experts on the CPU) has no "
         "evidence yet: `pcie_fraction` stays at its prior and such prefill ranges are the class "
         "band. SYCL has three rows (one GPU): its band is widened and says so.\n";
    return d;
}

std::vector<const Row*> select(const std::vector<Row>& rows, bool held, bool decode) {
    std::vector<const Row*> v;
    for (const auto& r : rows)
        if (r.held_out == held && r.decode == decode) v.push_back(&r);
    return v;
}

} // namespace

class TestSpeedAccuracy : public QObject {
    Q_OBJECT
private slots:
    void theDataSetHasAtLeast150SourcedRowsOnKnownGpusAndModels() {
        const auto rows = loadRows();
        QVERIFY2(rows.size() >= 150, qPrintable(QString::number(rows.size())));
        for (const auto& r : rows) {
            QVERIFY2(r.source.rfind("https://", 0) == 0, r.id.c_str());
            // A GPU row names a table GPU; a CPU-only row names its host's bandwidth instead.
            if (r.n_gpu > 0)
                QVERIFY2(gpuSpecByName(r.gpu).has_value(), r.gpu.c_str());
            else
                QVERIFY2(r.backend == "cpu" && r.host_gbs > 0 && r.cpu_tflops > 0, r.id.c_str());
            // Weights in host memory are priced at the host's bandwidth: the row must state it.
            if (partialOffload(r)) QVERIFY2(r.host_gbs > 0, r.id.c_str());
            QVERIFY2(catalog().find(r.model_id) != nullptr, r.model_id.c_str());
            QVERIFY2(r.tok_s > 0 && r.size_gib >= 0, r.id.c_str());
        }
    }

    void theDataSetCoversCpuOnlyPartialOffloadAndIntelRows() {
        // Issue 11 asks for CPU-only, partial-offload and Intel rows besides the full offloads.
        const auto rows = loadRows();
        int cpu = 0, partial = 0, intel = 0;
        for (const auto& r : rows) {
            cpu += r.n_gpu == 0;
            partial += partialOffload(r);
            intel += r.n_gpu > 0 && gpuSpecByName(r.gpu)->vendor_id == 0x8086;
        }
        QVERIFY2(cpu >= 5, qPrintable(QString::number(cpu)));
        QVERIFY2(partial >= 5, qPrintable(QString::number(partial)));
        QVERIFY2(intel >= 5, qPrintable(QString::number(intel)));
    }

    void theSplitHoldsOutAboutAThirdAndBothTestsOnEachSide() {
        const auto rows = loadRows();
        // The hash split puts one row in three on the held-out side; allow 25-42 %.
        const double share = double(std::count_if(rows.begin(), rows.end(),
                                                  [](const Row& r) { return r.held_out; })) /
                             rows.size();
        QVERIFY2(share > 0.25 && share < 0.42, qPrintable(QString::number(share)));
        for (bool held : {true, false})
            for (bool decode : {true, false})
                QVERIFY(select(rows, held, decode).size() >= 20);
    }

    void heldOutDecodeIsWithinFifteenPercentAtTheMedianAndNinetyPercentWithinHalf() {
        const auto rows = loadRows();
        const Score s = score(select(rows, true, true), fittedSpeedConstants());
        QVERIFY2(s.median >= 0.85 && s.median <= 1.15, qPrintable(QString::number(s.median)));
        QVERIFY2(s.within15 >= 0.90, qPrintable(QString::number(s.within15)));
    }

    void heldOutPrefillIsWithinAThirdAtTheMedianAndEightyPercentWithinDouble() {
        const auto rows = loadRows();
        const Score s = score(select(rows, true, false), fittedSpeedConstants());
        QVERIFY2(s.median >= 0.75 && s.median <= 1.33, qPrintable(QString::number(s.median)));
        QVERIFY2(s.within2 >= 0.80, qPrintable(QString::number(s.within2)));
    }

    void noHeldOutRowIsOffByMoreThanThreeTimes() {
        const auto rows = loadRows();
        for (bool decode : {true, false}) {
            const Score s = score(select(rows, true, decode), fittedSpeedConstants());
            QVERIFY2(std::max(s.worst, 1 / s.worst) <= 3.0, qPrintable(QString::number(s.worst)));
        }
    }

    void theMeasuredValueLiesInsideTheShownRangeForEightyPercentOfHeldOutRows() {
        const auto rows = loadRows();
        for (bool decode : {true, false}) {
            const Score s = score(select(rows, true, decode), fittedSpeedConstants());
            QVERIFY2(s.inRange >= 0.80, qPrintable(QString::number(s.inRange)));
        }
    }

    void noBackendClassIsSystematicallyOffOnItsHeldOutRows() {
        // The overall medians could hide one class off in one direction behind another off in the
        // other. Every class with at least 5 held-out rows of a test (fewer is noise: one row moves
        // a median of 3 by a whole row's error) keeps its median inside the prefill band,
        // 0.75-1.33 (x1.33 either way), for decode and prefill alike.
        const auto rows = loadRows();
        for (bool decode : {true, false}) {
            std::map<std::string, std::vector<const Row*>> byClass;
            for (const Row* r : select(rows, true, decode))
                byClass[classOf(*r)].push_back(r);
            for (const auto& [k, rs] : byClass) {
                if (rs.size() < 5) continue;
                const Score sc = score(rs, fittedSpeedConstants());
                QVERIFY2(sc.median >= 0.75 && sc.median <= 1.33,
                         qPrintable(QString("%1 %2: median %3")
                                        .arg(k.c_str())
                                        .arg(decode ? "decode" : "prefill")
                                        .arg(sc.median)));
            }
        }
    }

    void theCommittedConstantsAreTodaysFit() {
        const auto rows = loadRows();
        SpeedModelConstants fresh = fit(rows);
        if (qEnvironmentVariableIsSet("HEADROOM_SPEED_FIT")) {
            std::printf("%s", header(fresh).c_str());
            // Every row's ratio under the fresh fit, worst first: where the mechanism is off.
            std::vector<std::pair<double, const Row*>> q;
            q.reserve(rows.size());
            for (const auto& r : rows)
                q.push_back({predict(r, fresh) / r.tok_s, &r});
            std::sort(q.begin(), q.end(), [](const auto& a, const auto& b) {
                return std::abs(std::log(a.first)) > std::abs(std::log(b.first));
            });
            for (const auto& [ratio, r] : q)
                std::printf("%6.2f %s %s\n", ratio, r->held_out ? "held" : "fit ", r->id.c_str());
        }
        SpeedModelConstants committed = fittedSpeedConstants();
        // The committed fit explains the fit rows (nearly) as well as a fresh one: within 5 % of
        // its penalised squared log error, decode and prefill alike.
        for (bool decode : {true, false}) {
            const double a = penalised(rows, committed, decode);
            const double b = penalised(rows, fresh, decode);
            QVERIFY2(a <= b * 1.05 + 1e-6, qPrintable(QString("%1 vs fresh %2").arg(a).arg(b)));
        }
        // And the evidence counts it quotes are the data set's.
        for (const auto& k : committed.classes) {
            QCOMPARE(k.decode_rows, rowsOf(rows, k.key, true));
            QCOMPARE(k.prefill_rows, rowsOf(rows, k.key, false));
        }
    }

    void aClassWithoutEvidenceWidensItsRangeAndSaysSo() {
        // SYCL has fewer than 3 fit rows of decode evidence (one GPU in the data set): its band is
        // widened by 1.5 each side. 4e9 B per token from one 456 GB/s GPU, 28 layers:
        // t = 4e9 / (bw_fraction × 456e9) + 28 × us_per_layer µs.
        const SpeedModelConstants& c = fittedSpeedConstants();
        const SpeedClassConstants* k = nullptr;
        for (const auto& x : c.classes)
            if (std::string(x.key) == "sycl") k = &x;
        QVERIFY(k && k->decode_rows < 3);
        SpeedWork w;
        w.backend = "sycl";
        SpeedDevice d;
        d.bandwidth_gbs = 456;
        d.read_bytes = 4000000000ull;
        w.devices.push_back(d);
        w.n_layer = 28;
        const double t = 4e9 / (k->bw_fraction * 456e9) + 28 * k->us_per_layer * 1e-6;
        const SpeedFigure f = estimateDecode(w, c);
        QVERIFY(qAbs(f.tok_s - 1 / t) < 1e-9);
        QVERIFY(qAbs(f.low - f.tok_s * k->decode_low / 1.5) < 1e-9);
        QVERIFY(qAbs(f.high - f.tok_s * k->decode_high * 1.5) < 1e-9);
        QVERIFY(f.basis.find("no decode evidence") != std::string::npos);
    }

    void cpuOnlyDecodeReadsEveryWeightAtTheCpuClassFraction() {
        // 4e9 B per token from 80 GB/s host RAM, 32 layers, no GPU:
        // t = 4e9 / (cpu bw_fraction × 80e9) + 32 × cpu us_per_layer µs.
        const SpeedModelConstants& c = fittedSpeedConstants();
        const SpeedClassConstants* cpu = nullptr;
        for (const auto& k : c.classes)
            if (std::string(k.key) == "cpu") cpu = &k;
        QVERIFY(cpu && cpu->decode_rows >= 3);
        SpeedWork w;
        w.backend = "cpu";
        w.host_read_bytes = 4000000000ull;
        w.host_bandwidth_gbs = 80;
        w.n_layer = 32;
        const double t = 4e9 / (cpu->bw_fraction * 80e9) + 32 * cpu->us_per_layer * 1e-6;
        QVERIFY(qAbs(modelDecodeTokS(w, c) - 1 / t) < 1e-9);
    }

    void decodeSlowsAsTheKvCacheGrowsAndPrefillAsAttentionGrows() {
        // Qwen3-30B-A3B Q8_0 on a GB10: tg at depth 32768 reads the KV of every layer
        // too, pp at depth pays attention FLOPs over the whole cache; both must fall.
        Row r;
        r.gpu = "NVIDIA GB10";
        r.backend = "cuda";
        r.model_id = "qwen3-30b-a3b";
        r.size_gib = 30.25;
        r.decode = true;
        r.n_tokens = 32;
        const double tg0 = predict(r, fittedSpeedConstants());
        r.depth = 32768;
        const double tg32k = predict(r, fittedSpeedConstants());
        QVERIFY(tg32k < tg0);
        r.decode = false;
        r.n_tokens = 2048;
        r.ubatch = 2048;
        const double pp32k = predict(r, fittedSpeedConstants());
        r.depth = 0;
        QVERIFY(pp32k < predict(r, fittedSpeedConstants()));
    }

    void writesTheAccuracyTableIntoTheBuildTree() {
        const auto rows = loadRows();
        const std::filesystem::path dir =
            std::filesystem::path(HEADROOM_BIN_DIR).parent_path() / "docs";
        std::filesystem::create_directories(dir);
        const auto path = dir / "speed-accuracy.md";
        const std::string doc = accuracyDoc(rows, fittedSpeedConstants());
        std::ofstream(path) << doc;
        QVERIFY(std::filesystem::file_size(path) > 1000);
        // The committed copy (docs/speed-accuracy.md, read only) is today's table: a change to
        // the data set or the model that moves a number fails here until the copy is refreshed
        // (bench/speed_accuracy.sh writes it; cp build/docs/speed-accuracy.md docs/).
        std::ifstream committed(HEADROOM_SPEED_DOC);
        QVERIFY2(committed.good(), HEADROOM_SPEED_DOC);
        const std::string text((std::istreambuf_iterator<char>(committed)),
                               std::istreambuf_iterator<char>());
        QVERIFY2(text == doc, "docs/speed-accuracy.md is stale: copy the build tree's table");
    }
};

QTEST_APPLESS_MAIN(TestSpeedAccuracy)
#include "test_speed_accuracy.moc"
