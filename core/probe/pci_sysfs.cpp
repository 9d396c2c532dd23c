#include "pci_sysfs.h"

#include "fs_util.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace headroom::probe::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kVendorAmd = 0x1002;
constexpr std::uint32_t kVendorIntel = 0x8086;

// amdgpu without a discrete marker is an APU when its VRAM is a small BIOS carve-out and GTT (the
// system RAM the GPU may map) dwarfs it. Thresholds as Ollama's discover/amd.go readROCmDRMDevice
// uses them: VRAM <= 4 GiB, GTT >= 8 GiB and >= 4 x VRAM. Not knobs.
constexpr Bytes kApuMaxCarveOut = 4 * GiB;
constexpr Bytes kApuMinGtt = 8 * GiB;
constexpr Bytes kApuGttRatio = 4;

std::string resolve(const std::string& path) {
    std::error_code ec;
    auto p = fs::canonical(path, ec);
    return ec ? std::string() : p.string();
}

std::string baseName(const std::string& path) {
    return fs::path(path).filename().string();
}

} // namespace

std::uint32_t pcieGenFromSpeed(const std::string& speed) {
    const double gts = std::strtod(speed.c_str(), nullptr);
    if (gts >= 60) return 6;
    if (gts >= 30) return 5;
    if (gts >= 15) return 4;
    if (gts >= 7.5) return 3;
    if (gts >= 4.5) return 2;
    if (gts >= 2) return 1;
    return 0;
}

std::optional<PcieLink> readPcieLink(const std::string& devicePath) {
    PcieLink link;
    std::uint32_t hops = 0;
    std::string narrowest;
    fs::path p(devicePath);
    // A PCI hierarchy is at most 256 buses deep; the bound only guards against a looping fake tree.
    for (int depth = 0; depth < 256 && p.has_filename(); ++depth, p = p.parent_path()) {
        const std::string name = p.filename().string();
        if (!looksLikePciAddress(name)) break;
        const std::string dir = p.string();
        const auto maxSpeed = readLine(joinPath(dir, "max_link_speed"));
        const auto curSpeed = readLine(joinPath(dir, "current_link_speed"));
        const auto maxWidth = readU64(joinPath(dir, "max_link_width"));
        const auto curWidth = readU64(joinPath(dir, "current_link_width"));
        if (!maxSpeed && !curSpeed && !maxWidth && !curWidth) continue;
        const std::uint32_t gen = pcieGenFromSpeed(maxSpeed.value_or(curSpeed.value_or("")));
        const std::uint32_t cgen = pcieGenFromSpeed(curSpeed.value_or(""));
        std::uint32_t width = static_cast<std::uint32_t>(curWidth.value_or(0));
        if (width == 0) width = static_cast<std::uint32_t>(maxWidth.value_or(0));
        auto takeMin = [](std::uint32_t& acc, std::uint32_t v) {
            if (v != 0 && (acc == 0 || v < acc)) acc = v;
        };
        const std::uint32_t before = link.gen * 100 + link.width;
        takeMin(link.gen, gen);
        takeMin(link.width, width);
        takeMin(link.current_gen, cgen);
        takeMin(link.current_width, static_cast<std::uint32_t>(curWidth.value_or(0)));
        if (link.gen * 100 + link.width != before && hops > 0) narrowest = name;
        ++hops;
    }
    if (hops == 0 || (link.gen == 0 && link.width == 0)) return std::nullopt;
    link.provenance = "sysfs max_link_speed / current_link_width, narrowest of " +
                      std::to_string(hops) + " link(s) to the root port";
    if (!narrowest.empty()) link.provenance += " (narrowed at " + narrowest + ")";
    return link;
}

std::vector<SysfsGpu> readSysfsGpus(const ProbePaths& paths) {
    std::vector<SysfsGpu> out;
    std::set<std::string> seen;
    const std::string drm = joinPath(paths.sys_root, "class/drm");
    for (const auto& card : listDirectory(drm)) {
        if (card.rfind("card", 0) != 0 || card.size() == 4) continue;
        if (!std::all_of(card.begin() + 4, card.end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue; // card0-DP-1 and friends are connectors
        const std::string dev = resolve(joinPath(joinPath(drm, card), "device"));
        if (dev.empty()) continue;
        SysfsGpu g;
        g.card = card;
        g.device_path = dev;
        g.pci_address = baseName(dev);
        if (!looksLikePciAddress(g.pci_address)) g.pci_address.clear(); // platform (SoC) device
        if (!seen.insert(dev).second) continue;
        g.vendor_id = readHexId(joinPath(dev, "vendor")).value_or(0);
        g.device_id = readHexId(joinPath(dev, "device")).value_or(0);
        const std::string drv = resolve(joinPath(dev, "driver"));
        g.driver = drv.empty() ? "" : baseName(drv);
        g.product_name = readLine(joinPath(dev, "product_name")).value_or("");
        g.vram_total = readU64(joinPath(dev, "mem_info_vram_total"));
        g.vram_used = readU64(joinPath(dev, "mem_info_vram_used"));
        g.gtt_total = readU64(joinPath(dev, "mem_info_gtt_total"));
        g.gtt_used = readU64(joinPath(dev, "mem_info_gtt_used"));
        g.discrete_marker =
            exists(joinPath(dev, "mem_info_vram_vendor")) || exists(joinPath(dev, "board_info"));
        if (g.vendor_id == kVendorIntel && !g.vram_total) {
            // Intel dGPUs: xe driver tileN/physical_vram_size_bytes (summed over tiles), i915
            // drm/cardN/lmem_total_bytes (llmfit's intel_dgpu_vram_gb_from_pci_dir reads both).
            Bytes sum = 0;
            for (const auto& t : listDirectory(dev))
                if (t.rfind("tile", 0) == 0)
                    sum +=
                        readU64(joinPath(joinPath(dev, t), "physical_vram_size_bytes")).value_or(0);
            if (sum == 0)
                sum = readU64(joinPath(joinPath(drm, card), "lmem_total_bytes")).value_or(0);
            if (sum > 0) g.vram_total = sum;
            g.integrated = sum == 0;
        } else if (g.vendor_id == kVendorAmd) {
            const Bytes vram = g.vram_total.value_or(0), gtt = g.gtt_total.value_or(0);
            g.integrated = !g.discrete_marker && vram <= kApuMaxCarveOut && gtt >= kApuMinGtt &&
                           gtt >= kApuGttRatio * vram;
        }
        if (!g.pci_address.empty()) g.pcie = readPcieLink(dev);
        if (g.integrated) g.pcie.reset(); // an on-die GPU's "link" is internal, not a bus
        out.push_back(std::move(g));
    }
    return out;
}

void refreshSysfsUsage(SysfsGpu& g) {
    g.vram_used = readU64(joinPath(g.device_path, "mem_info_vram_used"));
    g.gtt_used = readU64(joinPath(g.device_path, "mem_info_gtt_used"));
}

} // namespace headroom::probe::detail
