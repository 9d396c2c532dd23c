#include "gpu_specs.h"

#include "hardware.h"

#include <algorithm>
#include <cctype>

namespace headroom {

namespace {

// Device ids: Debian 12's pci.ids (2023.04) where listed; ids marked "newer" are from the PCI ID
// repository (pci-ids.ucw.cz) after that snapshot. Bandwidth = bus width x data rate / 8 as the
// vendors publish it. FP16 = dense matrix (tensor core / WMMA / XMX) throughput with FP16
// accumulate where vendors distinguish (NVIDIA GeForce: 4 x the FP32 shader rate, per the Ampere
// GA102 and Ada whitepapers); Apple GPUs run FP16 at the FP32 rate (cores x 128 ALUs x 2 x clock).
// These are peaks: the speed model (policy/speed.h) applies fitted achieved fractions to them.
const std::vector<GpuSpec> kSpecs = {
    // NVIDIA GeForce
    {0x10de, 0x1e82, "", "RTX 2080", "NVIDIA GeForce RTX 2080", "turing", 448, 80.5, 8, 3, 16,
     false,
     "NVIDIA Turing whitepaper: 256-bit x 14 Gbps; 80.5 TFLOPS FP16 tensor (FP16 acc, reference "
     "clock); 10.1 TFLOPS FP32",
     10.1},
    {0x10de, 0x1e87, "", "RTX 2080", "NVIDIA GeForce RTX 2080", "turing", 448, 80.5, 8, 3, 16,
     false,
     "NVIDIA Turing whitepaper: 256-bit x 14 Gbps; 80.5 TFLOPS FP16 tensor (FP16 acc, reference "
     "clock); 10.1 TFLOPS FP32 (TU104 Rev. A id)",
     10.1},
    {0x10de, 0x2504, "", "RTX 3060", "NVIDIA GeForce RTX 3060", "ampere", 360, 51, 12, 4, 16, false,
     "NVIDIA spec: 192-bit x 15 Gbps; 4 x 12.7 TFLOPS FP32"},
    {0x10de, 0x2503, "", "RTX 3060", "NVIDIA GeForce RTX 3060", "ampere", 360, 51, 12, 4, 16, false,
     "NVIDIA spec: 192-bit x 15 Gbps; 4 x 12.7 TFLOPS FP32"},
    {0x10de, 0x2486, "", "RTX 3060 Ti", "NVIDIA GeForce RTX 3060 Ti", "ampere", 448, 65, 8, 4, 16,
     false, "NVIDIA spec: 256-bit x 14 Gbps; 4 x 16.2 TFLOPS FP32"},
    {0x10de, 0x2484, "", "RTX 3070", "NVIDIA GeForce RTX 3070", "ampere", 448, 81, 8, 4, 16, false,
     "NVIDIA spec: 256-bit x 14 Gbps; 4 x 20.3 TFLOPS FP32"},
    {0x10de, 0x2206, "", "RTX 3080", "NVIDIA GeForce RTX 3080", "ampere", 760, 119, 10, 4, 16,
     false, "NVIDIA spec: 320-bit x 19 Gbps; 4 x 29.8 TFLOPS FP32"},
    {0x10de, 0x220a, "", "RTX 3080 12GB", "NVIDIA GeForce RTX 3080 12GB", "ampere", 912, 122, 12, 4,
     16, false, "NVIDIA spec: 384-bit x 19 Gbps; 4 x 30.6 TFLOPS FP32"},
    {0x10de, 0x2208, "", "RTX 3080 Ti", "NVIDIA GeForce RTX 3080 Ti", "ampere", 912, 136, 12, 4, 16,
     false, "NVIDIA spec: 384-bit x 19 Gbps; 4 x 34.1 TFLOPS FP32"},
    {0x10de, 0x2204, "", "RTX 3090", "NVIDIA GeForce RTX 3090", "ampere", 936, 142, 24, 4, 16,
     false, "GA102 whitepaper: 384-bit x 19.5 Gbps, 142 TFLOPS FP16 tensor dense (FP16 acc)"},
    {0x10de, 0x2203, "", "RTX 3090 Ti", "NVIDIA GeForce RTX 3090 Ti", "ampere", 1008, 160, 24, 4,
     16, false, "NVIDIA spec: 384-bit x 21 Gbps; 4 x 40 TFLOPS FP32"},
    {0x10de, 0x2803, "", "RTX 4060 Ti", "NVIDIA GeForce RTX 4060 Ti", "ada", 288, 88, 16, 4, 8,
     false, "NVIDIA spec: 128-bit x 18 Gbps; 4 x 22.1 TFLOPS FP32"},
    {0x10de, 0x2805, "", "RTX 4060 Ti", "NVIDIA GeForce RTX 4060 Ti", "ada", 288, 88, 16, 4, 8,
     false, "NVIDIA spec: 128-bit x 18 Gbps (id newer); 4 x 22.1 TFLOPS FP32"},
    {0x10de, 0x2882, "", "RTX 4060", "NVIDIA GeForce RTX 4060", "ada", 272, 60, 8, 4, 8, false,
     "NVIDIA spec: 128-bit x 17 Gbps (id newer); 4 x 15.1 TFLOPS FP32"},
    {0x10de, 0x2786, "", "RTX 4070", "NVIDIA GeForce RTX 4070", "ada", 504, 117, 12, 4, 16, false,
     "NVIDIA spec: 192-bit x 21 Gbps; 4 x 29.1 TFLOPS FP32"},
    {0x10de, 0x2782, "", "RTX 4070 Ti", "NVIDIA GeForce RTX 4070 Ti", "ada", 504, 160, 12, 4, 16,
     false, "NVIDIA spec: 192-bit x 21 Gbps; 4 x 40.1 TFLOPS FP32"},
    {0x10de, 0x2704, "", "RTX 4080", "NVIDIA GeForce RTX 4080", "ada", 716.8, 195, 16, 4, 16, false,
     "NVIDIA spec: 256-bit x 22.4 Gbps; 4 x 48.7 TFLOPS FP32"},
    {0x10de, 0x2684, "", "RTX 4090", "NVIDIA GeForce RTX 4090", "ada", 1008, 330.3, 24, 4, 16,
     false, "Ada whitepaper: 384-bit x 21 Gbps, 330.3 TFLOPS FP16 tensor dense (FP16 acc)"},
    {0x10de, 0x2b85, "", "RTX 5090", "NVIDIA GeForce RTX 5090", "blackwell", 1792, 419, 32, 5, 16,
     false, "NVIDIA spec: 512-bit x 28 Gbps (id newer); 4 x 104.8 TFLOPS FP32"},
    // NVIDIA workstation (datasheets: FP32 rate; tensor FP16 dense = 4 x FP32 as on GeForce)
    {0x10de, 0x2230, "", "RTX A6000", "NVIDIA RTX A6000", "ampere", 768, 155, 48, 4, 16, false,
     "NVIDIA RTX A6000 datasheet: 384-bit GDDR6 768 GB/s, 38.7 TFLOPS FP32"},
    {0x10de, 0x27b2, "", "RTX 4000 Ada", "NVIDIA RTX 4000 Ada Generation", "ada", 360, 106.8, 20, 4,
     16, false, "NVIDIA RTX 4000 Ada datasheet: 160-bit GDDR6 360 GB/s, 26.7 TFLOPS FP32"},
    {0x10de, 0x26b2, "", "RTX 5000 Ada", "NVIDIA RTX 5000 Ada Generation", "ada", 576, 261.2, 32, 4,
     16, false, "NVIDIA RTX 5000 Ada datasheet: 256-bit GDDR6 576 GB/s, 65.3 TFLOPS FP32"},
    {0x10de, 0x26b1, "", "RTX 6000 Ada", "NVIDIA RTX 6000 Ada Generation", "ada", 960, 364.2, 48, 4,
     16, false, "NVIDIA RTX 6000 Ada datasheet: 384-bit GDDR6 960 GB/s, 91.1 TFLOPS FP32"},
    {0x10de, 0x2bb1, "", "RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 6000 Blackwell", "blackwell",
     1792, 500, 96, 5, 16, false,
     "NVIDIA RTX PRO 6000 Blackwell datasheet: 512-bit GDDR7 1792 GB/s, 125 TFLOPS FP32 (id "
     "newer)"},
    // NVIDIA data centre (datasheets; FP16 dense = the sparse figure / 2)
    {0x10de, 0x1b38, "", "Tesla P40", "NVIDIA Tesla P40", "pascal", 347, 0, 24, 3, 16, false,
     "NVIDIA P40 datasheet: 346 GB/s"},
    {0x10de, 0x1db1, "", "Tesla V100", "NVIDIA Tesla V100", "volta", 900, 125, 16, 3, 16, false,
     "NVIDIA V100 datasheet"},
    {0x10de, 0x1db4, "", "Tesla V100", "NVIDIA Tesla V100 PCIe", "volta", 900, 112, 16, 3, 16,
     false, "NVIDIA V100 PCIe datasheet"},
    {0x10de, 0x1eb8, "", "Tesla T4", "NVIDIA Tesla T4", "turing", 320, 65, 16, 3, 16, false,
     "NVIDIA T4 datasheet"},
    {0x10de, 0x20b0, "", "A100", "NVIDIA A100-SXM4-40GB", "ampere", 1555, 312, 40, 4, 16, false,
     "NVIDIA A100 40GB SXM datasheet"},
    {0x10de, 0x20f1, "", "A100", "NVIDIA A100-PCIE-40GB", "ampere", 1555, 312, 40, 4, 16, false,
     "NVIDIA A100 40GB PCIe datasheet"},
    {0x10de, 0x20b2, "", "A100", "NVIDIA A100-SXM4-80GB", "ampere", 2039, 312, 80, 4, 16, false,
     "NVIDIA A100 80GB SXM datasheet"},
    {0x10de, 0x20b5, "", "A100", "NVIDIA A100 80GB PCIe", "ampere", 1935, 312, 80, 4, 16, false,
     "NVIDIA A100 80GB PCIe datasheet"},
    {0x10de, 0x2236, "", "A10", "NVIDIA A10", "ampere", 600, 125, 24, 4, 16, false,
     "NVIDIA A10 datasheet"},
    {0x10de, 0x27b8, "", "L4", "NVIDIA L4", "ada", 300, 121, 24, 4, 16, false,
     "NVIDIA L4 datasheet: 242 TFLOPS sparse / 2"},
    {0x10de, 0x26b5, "", "L40", "NVIDIA L40", "ada", 864, 181, 48, 4, 16, false,
     "NVIDIA L40 datasheet"},
    {0x10de, 0x26b9, "", "L40S", "NVIDIA L40S", "ada", 864, 366, 48, 4, 16, false,
     "NVIDIA L40S datasheet (id newer)"},
    {0x10de, 0x2330, "", "H100", "NVIDIA H100 80GB HBM3", "hopper", 3350, 989, 80, 5, 16, false,
     "NVIDIA H100 SXM5 datasheet: 1979 TFLOPS sparse / 2"},
    {0x10de, 0x2331, "", "H100 PCIe", "NVIDIA H100 PCIe", "hopper", 2000, 756, 80, 5, 16, false,
     "NVIDIA H100 PCIe datasheet"},
    {0x10de, 0x2324, "", "H800", "NVIDIA H800", "hopper", 3350, 989, 80, 5, 16, false,
     "NVIDIA H800 SXM5 (H100 silicon)"},
    {0x10de, 0x2335, "", "H200", "NVIDIA H200", "hopper", 4800, 989, 141, 5, 16, false,
     "NVIDIA H200 SXM datasheet (id newer)"},
    {0x10de, 0, "", "GB10", "NVIDIA GB10", "blackwell-uma", 273, 125, 128, 0, 0, true,
     "NVIDIA DGX Spark spec: 128 GB LPDDR5x 273 GB/s; 1000 TFLOPS FP4 sparse / 2 / 4 (derived)"},
    // AMD (product pages; Navi 31 and Navi 21 ids are shared, the name tells them apart)
    {0x1002, 0x744c, "XTX", "RX 7900 XTX", "AMD Radeon RX 7900 XTX", "rdna3", 960, 122.8, 24, 4, 16,
     false, "AMD spec: 384-bit x 20 Gbps; peak FP16 122.8 TFLOPS; 61.4 TFLOPS FP32", 61.4},
    {0x1002, 0x744c, "XT", "RX 7900 XT", "AMD Radeon RX 7900 XT", "rdna3", 800, 103, 20, 4, 16,
     false, "AMD spec: 320-bit x 20 Gbps; peak FP16 103 TFLOPS; 51.5 TFLOPS FP32", 51.5},
    {0x1002, 0x73bf, "6800 XT", "RX 6800 XT", "AMD Radeon RX 6800 XT", "rdna2", 512, 41.5, 16, 4,
     16, false, "AMD spec: 256-bit x 16 Gbps; peak FP16 41.5 TFLOPS; 20.7 TFLOPS FP32", 20.7},
    {0x1002, 0x73bf, "", "RX 6800/6900", "AMD Radeon RX 6900 XT", "rdna2", 512, 46, 16, 4, 16,
     false, "AMD spec: 256-bit x 16 Gbps; peak FP16 46 TFLOPS; 23 TFLOPS FP32", 23.0},
    {0x1002, 0x73df, "", "RX 6700 XT", "AMD Radeon RX 6700 XT", "rdna2", 384, 26.4, 12, 4, 16,
     false, "AMD spec: 192-bit x 16 Gbps; peak FP16 26.4 TFLOPS; 13.2 TFLOPS FP32", 13.2},
    {0x1002, 0x67df, "", "RX 580", "AMD Radeon RX 580", "polaris", 256, 6.2, 8, 3, 16, false,
     "AMD spec: 256-bit x 8 Gbps; 6.2 TFLOPS (Polaris: FP16 at the FP32 rate)", 6.2},
    {0x1002, 0x7550, "", "RX 9070 XT", "AMD Radeon RX 9070 XT", "rdna4", 644.6, 195, 16, 5, 16,
     false,
     "AMD spec: 256-bit x 20.1 Gbps; 389 TFLOPS FP16 matrix with sparsity / 2 (id newer); 48.7 "
     "TFLOPS FP32",
     48.7},
    {0x1002, 0x740c, "", "Instinct MI250", "AMD Instinct MI250X", "cdna2", 3277, 362, 128, 4, 16,
     false, "AMD MI250X datasheet"},
    {0x1002, 0x740f, "", "Instinct MI210", "AMD Instinct MI210", "cdna2", 1638, 181, 64, 4, 16,
     false, "AMD MI210 datasheet"},
    {0x1002, 0x74a1, "", "Instinct MI300X", "AMD Instinct MI300X", "cdna3", 5300, 1307, 192, 5, 16,
     false, "AMD MI300X datasheet (id newer)"},
    {0x1002, 0x1586, "", "Radeon 8060S", "AMD Radeon 8060S", "rdna3-uma", 256, 59.4, 128, 0, 0,
     true,
     "AMD Ryzen AI Max+ 395: LPDDR5X-8000 256-bit; 40 CU x 512 FP16 FLOPs/clk x 2.9 GHz (id "
     "newer); FP32 40 CU x 256 x 2.9 GHz",
     29.7},
    // Intel (product pages; Alchemist XMX FP16 from the A770's 138 TFLOPS per Xe-core and GHz)
    {0x8086, 0x56a0, "", "Arc A770", "Intel Arc A770", "alchemist", 560, 138, 16, 4, 16, false,
     "Intel spec: 256-bit x 17.5 Gbps; 138 TFLOPS FP16 (XMX); 17.2 TFLOPS FP32", 17.2},
    {0x8086, 0x56a1, "", "Arc A750", "Intel Arc A750", "alchemist", 512, 120, 8, 4, 16, false,
     "Intel spec: 256-bit x 16 Gbps; 28 Xe-cores at the A770's XMX rate"},
    {0x8086, 0x56a5, "", "Arc A310", "Intel Arc A310", "alchemist", 124, 24.6, 4, 4, 8, false,
     "Intel spec: 64-bit x 15.5 Gbps; 6 Xe-cores x 2.0 GHz at the A770's XMX rate (derived); FP32 "
     "6 Xe-cores x 128 x 2 x 2.0 GHz",
     3.1},
    {0x8086, 0xe20b, "", "Arc B580", "Intel Arc B580", "battlemage", 456, 116.5, 12, 4, 8, false,
     "Intel spec: 192-bit x 19 Gbps (id newer); 233 INT8 TOPS / 2; 13.7 TFLOPS FP32", 13.7},
    {0x8086, 0xe212, "", "Arc Pro B50", "Intel Arc Pro B50", "battlemage", 224, 85, 16, 5, 8, false,
     "Intel spec: 128-bit x 14 Gbps (id newer); 170 INT8 TOPS / 2; 10.7 TFLOPS FP32", 10.7},
    // Apple (tech specs; GPU FP32 = cores x 128 ALUs x 2 x clock, FP16 at the same rate)
    {0x106b, 0, "", "M1", "Apple M1 (7-core GPU)", "apple-m1", 68.25, 2.3, 8, 0, 0, true,
     "Apple M1: LPDDR4X-4266 128-bit; 7 cores x 128 x 2 x 1.278 GHz"},
    {0x106b, 0, "", "M1 Max", "Apple M1 Max (32-core GPU)", "apple-m1", 400, 10.4, 64, 0, 0, true,
     "Apple M1 Max tech specs: 400 GB/s, 10.4 TFLOPS (32-core GPU)"},
    {0x106b, 0, "", "M1 Ultra", "Apple M1 Ultra (64-core GPU)", "apple-m1", 800, 21, 128, 0, 0,
     true, "Apple M1 Ultra tech specs: 800 GB/s, 21 TFLOPS (64-core GPU)"},
    {0x106b, 0, "", "M2 Ultra", "Apple M2 Ultra (76-core GPU)", "apple-m2", 800, 27.2, 192, 0, 0,
     true, "Apple M2 Ultra tech specs: 800 GB/s, 27.2 TFLOPS (76-core GPU)"},
    {0x106b, 0, "", "M3 Max", "Apple M3 Max (40-core GPU)", "apple-m3", 400, 14.2, 64, 0, 0, true,
     "Apple M3 Max tech specs: 400 GB/s (40-core GPU); 40 x 128 x 2 x 1.38 GHz"},
    {0x106b, 0, "", "M4 Max", "Apple M4 Max (40-core GPU)", "apple-m4", 546, 18.4, 128, 0, 0, true,
     "Apple M4 Max tech specs: 546 GB/s; 40 x 128 x 2 x 1.8 GHz"},
};

std::string squash(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == ' ' || c == '-' || c == '_') continue;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

// Each entry's names squashed once: plans look GPUs up by name many times.
struct Squashed {
    std::string model, full_name, name_hint;
};
const std::vector<Squashed>& squashedSpecs() {
    static const std::vector<Squashed> table = [] {
        std::vector<Squashed> t;
        t.reserve(std::size(kSpecs));
        for (const auto& e : kSpecs)
            t.push_back({squash(e.model), squash(e.full_name), squash(e.name_hint)});
        return t;
    }();
    return table;
}

} // namespace

const std::vector<GpuSpec>& gpuSpecs() {
    return kSpecs;
}

std::optional<GpuSpec> gpuSpecById(std::uint32_t vendor, std::uint32_t device,
                                   const std::string& name) {
    const std::string hay = squash(name);
    const auto& sq = squashedSpecs();
    auto has = [&hay](const std::string& needle) { return hay.find(needle) != std::string::npos; };
    if (device != 0) {
        for (size_t i = 0; i < kSpecs.size(); ++i) {
            const auto& e = kSpecs[i];
            if (e.vendor_id != vendor || e.device_id != device) continue;
            if (*e.name_hint && !has(sq[i].name_hint)) continue;
            return e;
        }
    }
    size_t best = kSpecs.size();
    for (size_t i = 0; i < kSpecs.size(); ++i) {
        const auto& e = kSpecs[i];
        if ((vendor != 0 && e.vendor_id != vendor) || name.empty() || !has(sq[i].model)) continue;
        if (*e.name_hint && !has(sq[i].name_hint)) continue;
        if (best == kSpecs.size() || sq[i].model.size() > sq[best].model.size()) best = i;
    }
    if (best < kSpecs.size()) return kSpecs[best];
    return std::nullopt;
}

std::optional<GpuSpec> gpuSpecByName(const std::string& name) {
    const std::string want = squash(name);
    if (want.empty()) return std::nullopt;
    const auto& sq = squashedSpecs();
    for (size_t i = 0; i < kSpecs.size(); ++i) // exact: "rtx4090", "m2ultra", or the full name
        if (sq[i].model == want || sq[i].full_name == want) return kSpecs[i];
    for (size_t i = 0; i < kSpecs.size(); ++i) // "4090" → "RTX 4090" (the model's tail)
        if (sq[i].model.size() > want.size() && sq[i].model.ends_with(want) &&
            std::isdigit(static_cast<unsigned char>(want[0])))
            return kSpecs[i];
    return gpuSpecById(0, 0, name);
}

void applyGpuSpec(GpuDevice& g, const GpuSpec& spec) {
    const std::string prov = std::string("GPU table: ") + spec.source;
    g.bandwidth_gbs = spec.bandwidth_gbs;
    g.bandwidth_provenance = prov;
    g.fp16_tflops = spec.fp16_tflops;
    g.fp16_provenance = prov;
    if (spec.pcie_gen > 0 && g.pcie_gen == 0) { // a stated link (a x8 second slot) stands
        g.pcie_gen = spec.pcie_gen;
        g.pcie_width = spec.pcie_width;
        g.pcie_provenance = prov;
    }
}

} // namespace headroom
