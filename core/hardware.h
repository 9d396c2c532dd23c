// HardwareSnapshot: the machine a plan is made for — probed, from a preset, from a saved
// profile, or typed in. MemoryBudget: what a plan may use of it, capacity or live.
#pragma once

#include "calibration.h"
#include "result.h"
#include "units.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// Where a figure came from; shown next to it ("VK_EXT_memory_budget", "NVML", "sysfs",
// "/proc/meminfo", "cgroup v2", "preset", "user", "table", "default estimate").
struct Figure {
    double value = 0;
    std::string provenance;
};

// One Vulkan memory heap as the driver reported it (kept so the UI can show split heaps).
struct MemoryHeap {
    Bytes size = 0;
    bool device_local = false;
    std::optional<Bytes> budget; // VK_EXT_memory_budget heapBudget (after clamping to size)
    std::optional<Bytes> usage;  // VK_EXT_memory_budget heapUsage
};

struct GpuDevice {
    std::string name;
    std::string backend = "cuda"; // cuda | vulkan | metal (how llama.cpp would drive it)
    std::uint32_t vendor_id = 0;
    std::uint32_t device_id = 0;
    std::string pci_address; // "0000:01:00.0" ("" when unknown)
    std::string driver;
    bool integrated = false;         // shares system RAM (APU, Apple Silicon, DGX Spark)
    Bytes total_bytes = 0;           // device-local memory (UMA: the pool the GPU may use)
    std::optional<Bytes> free_bytes; // live free memory right now (nullopt: unknown)
    std::string memory_provenance;   // of total/free
    double bandwidth_gbs = 0;        // memory bandwidth, GB/s (0 = unknown)
    std::string bandwidth_provenance;
    double fp16_tflops = 0;                     // dense FP16 throughput (0 = unknown)
    std::uint32_t pcie_gen = 0, pcie_width = 0; // narrowest link on the path to the root port
    // Added by the probe (issue 4); empty / zero when not known.
    std::string device_type; // discrete | integrated | virtual | cpu | other ("" unknown)
    std::string uuid;        // Vulkan deviceUUID as hex, the key that joins two drivers' views
    std::vector<MemoryHeap> heaps;
    std::string fp16_provenance;
    std::string pcie_provenance;
    std::string note; // why it is ignored, what was corrected ("budget clamped to heap size")
};

// The link from the main host to one RPC host. Defaults when nothing better is known (ESTIMATES,
// shown with their provenance): gigabit Ethernet, 1000BASE-T's 1 Gbit/s = 0.125 GB/s of payload
// at most (IEEE 802.3ab); a switched-LAN round trip of 0.2 ms (typical ICMP ping between two
// hosts on one gigabit switch: 0.1-0.3 ms). A probe measures the round trip of its own exchange.
inline constexpr double kDefaultRpcLinkGbs = 0.125;
inline constexpr double kDefaultRpcRttMs = 0.2;
inline constexpr const char* kDefaultRpcLinkProvenance = "default estimate (1 GbE)";
inline constexpr const char* kDefaultRpcRttProvenance = "default estimate (switched LAN)";
// Bounds a profile or flag may give: 1 TB/s is beyond any network link; a 10 s round trip is no
// link llama.cpp's RPC could run over. Not knobs.
inline constexpr double kMaxRpcLinkGbs = 1000;
inline constexpr double kMaxRpcRttMs = 10000;

// One machine running llama.cpp's `rpc-server` (issue 15): its devices, as the server serves them
// and in its order, and the link to the main host. llama-server puts every RPC device before its
// own GPUs (src/llama.cpp llama_prepare_model_devices: "add RPC servers at the front of the
// list"), numbering them RPC0, RPC1, ... across the hosts in --rpc order
// (ggml-rpc.cpp ggml_backend_rpc_add_server: one global dev_id counter).
struct RpcHost {
    std::string endpoint;           // "host:port" as llama-server's --rpc takes it
    std::string label;              // optional name shown beside the endpoint ("" = none)
    std::vector<GpuDevice> devices; // per served device; backend "rpc" when not known
    std::optional<Bytes> ram_total; // the host's RAM, when known (not planned on: see planner)
    double link_gbs = kDefaultRpcLinkGbs; // payload bandwidth to the main host, GB/s
    std::string link_provenance = kDefaultRpcLinkProvenance;
    double rtt_ms = kDefaultRpcRttMs; // round trip to the main host
    std::string rtt_provenance = kDefaultRpcRttProvenance;
    std::string source; // "probe" (answered the RPC protocol), "user", "file"
};

struct HardwareSnapshot {
    std::string label;  // "RTX 4090 24 GiB + 64 GiB DDR5", shown in the header
    std::string source; // "probe", "preset:rtx-4090", "file:PATH", "user"
    std::vector<GpuDevice> gpus;
    // Devices seen but not planned for: CPU/software Vulkan drivers (llvmpipe), an iGPU next to a
    // discrete card, a GPU whose memory size is unknown. Each says why in `note`. (issue 4)
    std::vector<GpuDevice> ignored_devices;
    bool uma = false; // one physical pool: GPU and CPU share RAM (no separate spill room)
    Bytes ram_total = 0;
    std::optional<Bytes> ram_available; // live (MemAvailable, cgroup-limited)
    std::string ram_provenance;
    Bytes swap_total = 0;
    std::optional<Bytes> cgroup_limit; // container memory limit, when one applies
    // Added by the probe (issue 4).
    std::string ram_available_provenance; // "MemAvailable", "cgroup v2 memory.max - usage", ...
    std::optional<Bytes> swap_free;
    std::string cgroup_version;        // "v1", "v2" or "" (none found)
    std::optional<Bytes> cgroup_usage; // usage of the binding cgroup (page cache excluded)
    std::string cpu_name;
    std::string cpu_tflops_provenance;
    double host_bandwidth_gbs = 0; // system RAM bandwidth, GB/s (0 = unknown)
    std::string host_bandwidth_provenance;
    double cpu_tflops = 0; // CPU FP32 throughput for prefill estimates (0 = unknown)
    unsigned cpu_threads = 0;
    std::vector<std::string> notes; // probe remarks ("no Vulkan loader: …")
    std::vector<RpcHost> rpc_hosts; // llama.cpp RPC servers the main host offloads to (issue 15)
    // What `headroom-cli verify --save-calibration` measured with the user's llama.cpp (issue 10).
    std::optional<Calibration> calibration;
};

// One device a plan may place layers on, in llama.cpp's device order: every RPC host's devices
// first (in --rpc order), then this machine's GPUs.
struct ClusterDevice {
    const GpuDevice* gpu = nullptr;
    int rpc_host = -1;   // index into rpc_hosts; -1 = this machine
    std::string name;    // "RPC0" for RPC devices (llama.cpp's name), the GPU's name otherwise
    std::string display; // "rpc 10.0.0.7:50052 (den) RPC0", or the local GPU's name
};
std::vector<ClusterDevice> clusterDevices(const HardwareSnapshot& hw);

// The most GPUs a plan places layers on: llama.cpp's own limit (src/llama.cpp llama_max_devices()
// returns 16; ggml-cuda's GGML_CUDA_MAX_DEVICES is 16 too). Bounding the count also keeps every
// sum of per-device budgets (each at most kMaxPlausibleBytes = 2^50) far below 2^63.
inline constexpr std::size_t kMaxDevices = 16;

// Saturating signed addition for budgets (over-committed budgets are negative, never wrapped).
constexpr SignedBytes satAddSigned(SignedBytes a, SignedBytes b) {
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

// A snapshot from flags: --vram 24GiB[,12GiB] --ram 64GiB [--uma].
HardwareSnapshot snapshotFromSizes(const std::vector<Bytes>& vram, Bytes ram, bool uma);
// A snapshot from GPU names (--gpu "RTX 4090"[,NAME]): each GPU's memory, bandwidth, compute and
// host link from the GPU table (gpu_specs.h), so a GPU typed by name prices exactly like the
// preset or probe of the same card; `vram` (optional, one per GPU or empty) overrides the
// table's memory size. A unified-memory GPU (Apple, GB10, Strix Halo) makes the snapshot UMA.
// NotFound names the unknown GPU.
Result<HardwareSnapshot> snapshotFromGpuNames(const std::vector<std::string>& names,
                                              const std::vector<Bytes>& vram, Bytes ram);
// Structural checks (absurd sizes, zero RAM, UMA with several GPUs); names the field.
Result<bool> validateSnapshot(const HardwareSnapshot& hw);

enum class BudgetKind { Capacity, Live };

// What a plan may place. Budgets are signed: an over-committed device is negative, never wrapped.
struct DeviceBudget {
    std::string name;
    std::string rpc_endpoint; // the RPC host serving it ("" = this machine)
    std::string backend;      // the device's GpuDevice::backend (runtime overhead)
    Bytes total = 0;
    Bytes margin = 0;       // reserve kept free (driver, desktop, fragmentation)
    SignedBytes usable = 0; // total (or live free) - margin - extra reserve
    std::string provenance;
    // The card is (nearly) all margin: `usable` is only what llama.cpp allocates on it whatever
    // the placement (the planner's keepRuntimeRoom), so no layer is planned there (-ts gives it 0).
    bool runtime_only = false;
};

struct MemoryBudget {
    BudgetKind kind = BudgetKind::Capacity;
    std::vector<DeviceBudget> devices; // empty: CPU only
    bool uma = false;
    Bytes uma_pool_total = 0;   // UMA: the whole shared pool (for the OS-floor check)
    SignedBytes ram_usable = 0; // host RAM a plan may use (UMA: 0, it is the same pool)
    Bytes ram_total = 0;
    std::string ram_provenance;
    bool unknown = false; // a live reading was unusable: plans must refuse, not guess

    SignedBytes vramUsable() const;
};

// Capacity planning margin for a discrete card: max(2 GiB, 9 % of the card). Measured by Hermes
// as what drivers, the desktop and fragmentation take on real machines. Not a knob.
inline constexpr Bytes kDiscreteMarginFloor = 2 * GiB;
inline constexpr double kDiscreteMarginFraction = 0.09;
// Unified memory: a plan may use 80 % of the pool; the rest is the OS's. Not a knob.
inline constexpr double kUmaUsableFraction = 0.80;
// CPU only: the model may use 80 % of RAM. Not a knob.
inline constexpr double kCpuOnlyUsableFraction = 0.80;

// What a budget keeps out besides the margins: `extra` more free on the main host's first GPU (or
// the pool: --reserve), and what the other models of a set hold (planModelSet prices each member
// beside the ones before it): per device in llama.cpp's order (clusterDevices; a missing entry is
// 0) and in host RAM. On unified memory both come out of the one pool.
struct BudgetReserve {
    Bytes extra = 0;
    std::vector<Bytes> devices;
    Bytes host = 0;
};

MemoryBudget capacityBudget(const HardwareSnapshot& hw, const BudgetReserve& reserve);
MemoryBudget capacityBudget(const HardwareSnapshot& hw, Bytes extra_reserve);
// Live: free memory right now, same margins. unknown=true when the snapshot has no live figure.
MemoryBudget liveBudget(const HardwareSnapshot& hw, const BudgetReserve& reserve);
MemoryBudget liveBudget(const HardwareSnapshot& hw, Bytes extra_reserve);
bool hasLiveFigures(const HardwareSnapshot& hw);

} // namespace headroom
