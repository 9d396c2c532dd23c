#include "gpu_tables.h"

#include <algorithm>
#include <cctype>

namespace headroom::probe::detail {

namespace {

// Device ids: Debian 12's pci.ids (2023.04) where listed; ids marked "newer" are from the PCI ID
// repository (pci-ids.ucw.cz) after that snapshot. Bandwidth = bus width x data rate / 8 as the
// vendors publish it; FP16 = dense matrix (tensor core / WMMA / XMX) throughput with FP16
// accumulate where vendors distinguish, the same definition as resources/presets.json.
constexpr GpuTableEntry kGpuTable[] = {
    // NVIDIA GeForce (Ampere GA102 / Ada / Blackwell whitepapers and product pages)
    {0x10de, 0x2504, "", "RTX 3060", 360, 51, "NVIDIA spec: 192-bit x 15 Gbps"},
    {0x10de, 0x2503, "", "RTX 3060", 360, 51, "NVIDIA spec: 192-bit x 15 Gbps"},
    {0x10de, 0x2486, "", "RTX 3060 Ti", 448, 65, "NVIDIA spec: 256-bit x 14 Gbps"},
    {0x10de, 0x2484, "", "RTX 3070", 448, 81, "NVIDIA spec: 256-bit x 14 Gbps"},
    {0x10de, 0x2206, "", "RTX 3080", 760, 119, "NVIDIA spec: 320-bit x 19 Gbps"},
    {0x10de, 0x220a, "", "RTX 3080 12GB", 912, 122, "NVIDIA spec: 384-bit x 19 Gbps"},
    {0x10de, 0x2208, "", "RTX 3080 Ti", 912, 136, "NVIDIA spec: 384-bit x 19 Gbps"},
    {0x10de, 0x2204, "", "RTX 3090", 936, 142, "GA102 whitepaper: 384-bit x 19.5 Gbps"},
    {0x10de, 0x2203, "", "RTX 3090 Ti", 1008, 160, "NVIDIA spec: 384-bit x 21 Gbps"},
    {0x10de, 0x2803, "", "RTX 4060 Ti", 288, 88, "NVIDIA spec: 128-bit x 18 Gbps"},
    {0x10de, 0x2805, "", "RTX 4060 Ti", 288, 88, "NVIDIA spec: 128-bit x 18 Gbps (id newer)"},
    {0x10de, 0x2882, "", "RTX 4060", 272, 60, "NVIDIA spec: 128-bit x 17 Gbps (id newer)"},
    {0x10de, 0x2786, "", "RTX 4070", 504, 117, "NVIDIA spec: 192-bit x 21 Gbps"},
    {0x10de, 0x2782, "", "RTX 4070 Ti", 504, 160, "NVIDIA spec: 192-bit x 21 Gbps"},
    {0x10de, 0x2704, "", "RTX 4080", 716.8, 195, "NVIDIA spec: 256-bit x 22.4 Gbps"},
    {0x10de, 0x2684, "", "RTX 4090", 1008, 330.3, "Ada whitepaper: 384-bit x 21 Gbps"},
    {0x10de, 0x2b85, "", "RTX 5090", 1792, 419, "NVIDIA spec: 512-bit x 28 Gbps (id newer)"},
    // NVIDIA data centre (datasheets; FP16 dense = the sparse figure / 2)
    {0x10de, 0x1b38, "", "Tesla P40", 347, 0, "NVIDIA P40 datasheet: 346 GB/s"},
    {0x10de, 0x1db1, "", "Tesla V100", 900, 125, "NVIDIA V100 datasheet"},
    {0x10de, 0x1db4, "", "Tesla V100", 900, 112, "NVIDIA V100 PCIe datasheet"},
    {0x10de, 0x1eb8, "", "Tesla T4", 320, 65, "NVIDIA T4 datasheet"},
    {0x10de, 0x20b0, "", "A100", 1555, 312, "NVIDIA A100 40GB SXM datasheet"},
    {0x10de, 0x20f1, "", "A100", 1555, 312, "NVIDIA A100 40GB PCIe datasheet"},
    {0x10de, 0x20b2, "", "A100", 2039, 312, "NVIDIA A100 80GB SXM datasheet"},
    {0x10de, 0x20b5, "", "A100", 1935, 312, "NVIDIA A100 80GB PCIe datasheet"},
    {0x10de, 0x2236, "", "A10", 600, 125, "NVIDIA A10 datasheet"},
    {0x10de, 0x2230, "", "RTX A6000", 768, 155, "NVIDIA RTX A6000 datasheet"},
    {0x10de, 0x27b8, "", "L4", 300, 121, "NVIDIA L4 datasheet"},
    {0x10de, 0x26b5, "", "L40", 864, 181, "NVIDIA L40 datasheet"},
    {0x10de, 0x26b9, "", "L40S", 864, 366, "NVIDIA L40S datasheet (id newer)"},
    {0x10de, 0x2330, "", "H100", 3350, 989, "NVIDIA H100 SXM5 datasheet"},
    {0x10de, 0x2331, "", "H100", 2000, 756, "NVIDIA H100 PCIe datasheet"},
    {0x10de, 0x2324, "", "H800", 3350, 989, "NVIDIA H800 SXM5 (H100 silicon)"},
    {0x10de, 0x2335, "", "H200", 4800, 989, "NVIDIA H200 SXM datasheet (id newer)"},
    // AMD (product pages; Navi 31's id is shared by XT and XTX, the name tells them apart)
    {0x1002, 0x744c, "XTX", "RX 7900 XTX", 960, 122.8, "AMD spec: 384-bit x 20 Gbps"},
    {0x1002, 0x744c, "XT", "RX 7900 XT", 800, 103, "AMD spec: 320-bit x 20 Gbps"},
    {0x1002, 0x73bf, "", "RX 6800/6900", 512, 46, "AMD spec: 256-bit x 16 Gbps"},
    {0x1002, 0x73df, "", "RX 6700 XT", 384, 26, "AMD spec: 192-bit x 16 Gbps"},
    {0x1002, 0x740c, "", "Instinct MI250", 3277, 362, "AMD MI250X datasheet"},
    {0x1002, 0x740f, "", "Instinct MI210", 1638, 181, "AMD MI210 datasheet"},
    {0x1002, 0x74a1, "", "Instinct MI300X", 5300, 1307, "AMD MI300X datasheet (id newer)"},
    {0x1002, 0x1586, "", "Radeon 8060S", 256, 59.4,
     "AMD Ryzen AI Max+ 395: LPDDR5X-8000 256-bit (id newer)"},
    // Intel (product pages)
    {0x8086, 0x56a0, "", "Arc A770", 560, 0, "Intel spec: 256-bit x 17.5 Gbps"},
    {0x8086, 0x56a1, "", "Arc A750", 512, 0, "Intel spec: 256-bit x 16 Gbps"},
    {0x8086, 0xe20b, "", "Arc B580", 456, 116.5, "Intel spec: 192-bit x 19 Gbps (id newer)"},
};

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool contains(const std::string& hay, const char* needle) {
    return lower(hay).find(lower(needle)) != std::string::npos;
}

} // namespace

std::optional<GpuTableEntry> lookupGpu(std::uint32_t vendor, std::uint32_t device,
                                       const std::string& name) {
    for (const auto& e : kGpuTable) {
        if (e.vendor_id != vendor || e.device_id != device) continue;
        if (*e.name_hint && !contains(name, e.name_hint)) continue;
        return e;
    }
    // By name: the longest model name found in the device name ("RTX 3060 Ti" over "RTX 3060").
    const GpuTableEntry* best = nullptr;
    for (const auto& e : kGpuTable) {
        if (e.vendor_id != vendor || name.empty() || !contains(name, e.model)) continue;
        if (*e.name_hint && !contains(name, e.name_hint)) continue;
        if (!best || std::string(e.model).size() > std::string(best->model).size()) best = &e;
    }
    if (best) return *best;
    return std::nullopt;
}

double bandwidthFromClock(unsigned memClockMhz, unsigned busWidthBits) {
    return 2.0 * memClockMhz * busWidthBits / 8.0 / 1000.0;
}

double pcieGbs(std::uint32_t gen, std::uint32_t width) {
    // Per lane and direction after encoding overhead.
    static constexpr double kPerLane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
    if (gen == 0 || width == 0) return 0;
    return kPerLane[std::min<std::uint32_t>(gen, 6)] * width;
}

} // namespace headroom::probe::detail
