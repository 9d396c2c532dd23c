// Builds fake /proc and /sys trees under a temporary directory for probe tests.
#pragma once

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <string>

namespace headroom::test {

class FakeTree {
public:
    FakeTree()
        : proc_(dir_.path().toStdString() + "/proc"), sys_(dir_.path().toStdString() + "/sys") {
        std::filesystem::create_directories(proc_);
        std::filesystem::create_directories(sys_);
    }
    const std::string& proc() const { return proc_; }
    const std::string& sys() const { return sys_; }

    // Writes `text` to root/rel, creating folders.
    static void write(const std::string& root, const std::string& rel, const std::string& text) {
        const std::filesystem::path p = std::filesystem::path(root) / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    void proc(const std::string& rel, const std::string& text) const { write(proc_, rel, text); }
    void sys(const std::string& rel, const std::string& text) const { write(sys_, rel, text); }
    // sys/<from> -> sys/<to> (relative target, as the kernel's links are).
    void sysLink(const std::string& from, const std::string& to) const {
        const std::filesystem::path f = std::filesystem::path(sys_) / from;
        std::filesystem::create_directories(f.parent_path());
        std::filesystem::create_directories(std::filesystem::path(sys_) / to);
        std::filesystem::create_symlink(
            std::filesystem::relative(std::filesystem::path(sys_) / to, f.parent_path()), f);
    }
    // A meminfo with the given sizes in GiB (written in kB as the kernel does).
    void meminfo(unsigned long long totalGiB, unsigned long long availGiB,
                 unsigned long long swapGiB = 0) const {
        const auto kb = [](unsigned long long g) { return std::to_string(g * 1024 * 1024); };
        proc("meminfo", "MemTotal:       " + kb(totalGiB) + " kB\nMemFree:        " +
                            kb(availGiB / 2) + " kB\nMemAvailable:   " + kb(availGiB) +
                            " kB\nBuffers:           1024 kB\nSwapTotal:      " + kb(swapGiB) +
                            " kB\nSwapFree:       " + kb(swapGiB) + " kB\n");
    }
    // A PCI GPU at devices/pci0000:00/<bridge>/<bdf>, reachable as class/drm/<card>/device and
    // bus/pci/devices/<bdf>, with a driver link.
    std::string pciGpu(const std::string& card, const std::string& bridgePath,
                       const std::string& bdf, const std::string& vendor, const std::string& device,
                       const std::string& driver) const {
        std::string dev = // not const: returned, so moved
            "devices/pci0000:00/" + bridgePath + (bridgePath.empty() ? "" : "/") + bdf;
        sys(dev + "/vendor", vendor + "\n");
        sys(dev + "/device", device + "\n");
        sysLink("class/drm/" + card + "/device", dev);
        sysLink("bus/pci/devices/" + bdf, dev);
        sysLink(dev + "/driver", "bus/pci/drivers/" + driver);
        return dev;
    }
    void link(const std::string& dev, const std::string& maxSpeed, int maxWidth,
              const std::string& curSpeed, int curWidth) const {
        sys(dev + "/max_link_speed", maxSpeed + "\n");
        sys(dev + "/max_link_width", std::to_string(maxWidth) + "\n");
        sys(dev + "/current_link_speed", curSpeed + "\n");
        sys(dev + "/current_link_width", std::to_string(curWidth) + "\n");
    }

private:
    QTemporaryDir dir_;
    std::string proc_, sys_;
};

} // namespace headroom::test
