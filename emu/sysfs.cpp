// SPDX-License-Identifier: MIT
// The emulated KFD sysfs topology and DRM sysfs entries, materialised as real files in a private directory.
#include "emu/sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "emu/device_model.h"
#include "emu/interpose.h"

namespace emu {

namespace {

// The tree's root, then each part when a path in it is first translated: a process that never
// looks at the DRM or module entries (kfdrt's runtime reads the topology only) does not make them.
std::once_flag g_once, g_once_topology, g_once_drm, g_once_module;
std::mutex g_build_mu;  // one part built at a time (g_made)
std::string g_root;
pid_t g_root_owner = 0;

// Directories this process made for its tree: each is made once, and its parents are not tried
// again (a mkdir per path component and file was most of the tree's system calls).
std::set<std::string> g_made;

void mkdirs(const std::string& path) {
  if (path.empty() || g_made.count(path)) return;
  mkdirs(path.substr(0, path.rfind('/')));
  real_mkdir(path.c_str(), 0755);
  g_made.insert(path);
}

void put(const std::string& path, const std::string& text) {
  mkdirs(path.substr(0, path.rfind('/')));
  int fd = real_open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, text.data(), text.size());
  (void)w;
  close(fd);
}

std::string mem_bank(uint32_t heap_type, uint64_t size) {
  char b[256];
  std::snprintf(b, sizeof b, "heap_type %u\nsize_in_bytes %llu\nflags 0\nwidth 4096\nmem_clk_max 1600\n",
                heap_type, (unsigned long long)size);
  return b;
}

std::string cache(uint32_t level, uint32_t kb, uint32_t type, uint32_t first_simd) {
  char b[256];
  std::snprintf(b, sizeof b,
                "processor_id_low %u\nlevel %u\nsize %u\ncache_line_size 64\ncache_lines_per_tag 1\n"
                "association 16\nlatency 0\ntype %u\nsibling_map 1\n",
                first_simd, level, kb, type);
  return b;
}

// A PCIe link (type 2, enabled). The kernel's weight for one PCIe hop is 20; a GPU-to-GPU link
// through the root complex adds both GPUs' links (kfd_topology.c kfd_add_peer_prop).
std::string io_link(uint32_t from, uint32_t to, uint32_t weight = 20) {
  char b[256];
  std::snprintf(b, sizeof b,
                "type 2\nversion_major 0\nversion_minor 0\nnode_from %u\nnode_to %u\nweight %u\n"
                "min_latency 0\nmax_latency 0\nmin_bandwidth 312\nmax_bandwidth 64000\n"
                "recommended_transfer_size 0\nflags 1\n",
                from, to, weight);
  return b;
}

// Removes a tree of ours; it holds only small text files, directories and one symlink.
void remove_tree(const std::string& p) {
  DIR* d = real_opendir(p.c_str());
  if (d) {
    while (dirent* e = readdir(d)) {
      if (!std::strcmp(e->d_name, ".") || !std::strcmp(e->d_name, "..")) continue;
      std::string c = p + "/" + e->d_name;
      if (e->d_type == DT_DIR) remove_tree(c);
      else unlink(c.c_str());
    }
    closedir(d);
  }
  rmdir(p.c_str());
}

// Trees in `dir` left by processes that were killed before their exit handler ran (the name
// carries the owner's pid): on /dev/shm they would hold memory until reboot.
void sweep_stale_trees(const char* dir) {
  DIR* d = real_opendir(dir);
  if (!d) return;
  const char prefix[] = "kfdemu-sysfs-";
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix, sizeof prefix - 1) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(e->d_name + sizeof prefix - 1, &end, 10);
    if (pid <= 0 || !end || *end != '-') continue;  // no owner in the name: not ours to judge
    if (kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // the owner may still run
    remove_tree(std::string(dir) + "/" + e->d_name);
  }
  closedir(d);
}

void make_root() {
  // On a memory file system when there is one (/dev/shm): the tree is built and removed by every
  // process, and on a disk file system (ext4 /tmp) that was most of a program's start-up time.
  sweep_stale_trees("/dev/shm");
  std::string shm = "/dev/shm/kfdemu-sysfs-" + std::to_string(getpid()) + "-XXXXXX";
  std::string tmp = "/tmp/kfdemu-sysfs-" + std::to_string(getpid()) + "-XXXXXX";
  const char* root = mkdtemp(shm.data());
  if (!root) root = mkdtemp(tmp.data());
  if (!root) {
    std::perror("kfdemu: mkdtemp for the emulated sysfs (/dev/shm and /tmp)");
    return;
  }
  g_root = root;
  g_root_owner = getpid();
  g_made.insert(g_root);  // mkdtemp made it
}

// /proc/modules and /sys/module/amdgpu.
void build_module() {
  // /proc/modules as a runtime's driver check sees it (rocminfo looks for amdgpu there): the real
  // list, if any, plus the amdgpu module.
  std::string modules;
  int mfd = real_open("/proc/modules", O_RDONLY | O_CLOEXEC);  // not fopen: that is interposed
  if (mfd >= 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(mfd, buf, sizeof buf)) > 0) modules.append(buf, size_t(n));
    close(mfd);
  }
  if (modules.find("amdgpu ") == std::string::npos)
    modules += "amdgpu 15028224 0 - Live 0x0000000000000000\n";
  put(g_root + "/proc/modules", modules);
  // /sys/module/amdgpu as kmod (lsmod, which rocminfo runs) reads it for a loaded module.
  put(g_root + "/module/amdgpu/initstate", "live\n");
  put(g_root + "/module/amdgpu/refcnt", "0\n");
  put(g_root + "/module/amdgpu/coresize", "15028224\n");
  put(g_root + "/module/amdgpu/initsize", "0\n");
  put(g_root + "/module/amdgpu/taint", "\n");
  mkdirs(g_root + "/module/amdgpu/holders");
}

// /sys/class/kfd/kfd/topology.
void build_topology() {
  const Model& m = model();
  std::string topo = g_root + "/kfd/topology";
  put(topo + "/generation_id", "1\n");
  put(topo + "/system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
  std::string cpu = topo + "/nodes/0";
  put(cpu + "/gpu_id", "0\n");
  put(cpu + "/name", "\n");
  put(cpu + "/properties", cpu_node_properties());
  put(cpu + "/mem_banks/0/properties", mem_bank(0, m.host_mem_bytes));
  for (const auto& g : m.gpus) {
    put(cpu + "/io_links/" + std::to_string(g.index) + "/properties", io_link(0, g.node_id));
    std::string n = topo + "/nodes/" + std::to_string(g.node_id);
    put(n + "/gpu_id", std::to_string(g.gpu_id) + "\n");
    put(n + "/name", std::string(g.target->asic) + "\n");
    put(n + "/properties", gpu_node_properties(g));
    // kfd_crat.c kfd_create_vcrat_image_gpu: a large-BAR part reports its VRAM as one public
    // heap (HSA_MEM_HEAP_TYPE_FB_PUBLIC 1); any other the whole VRAM as one private heap (2).
    put(n + "/mem_banks/0/properties", mem_bank(g.large_bar() ? 1 : 2, g.vram_bytes));
    uint32_t simd0 = 0x80001000u + g.index * 0x1000u;
    put(n + "/caches/0/properties", cache(1, 16, 1 | 8, simd0));     // L1 vector cache per CU (data, HSACU)
    put(n + "/caches/1/properties", cache(2, 8192, 1 | 8, simd0));   // L2 (data, HSACU)
    put(n + "/io_links/0/properties", io_link(g.node_id, 0));
    // Peer links to the other GPUs (large BAR, PCIe P2P: amdgpu_device_is_peer_accessible), as
    // kfd_dev_create_p2p_links publishes them under p2p_links.
    uint32_t k = 0;
    for (const auto& h : m.gpus)
      if (h.node_id != g.node_id)
        put(n + "/p2p_links/" + std::to_string(k++) + "/properties", io_link(g.node_id, h.node_id, 40));
  }
}

// /sys/dev/char/226:<minor> and /dev/dri.
void build_drm() {
  for (const auto& g : model().gpus) {
    // DRM side: /sys/dev/char/226:<minor>/device/{drm,vendor,device,...} for libdrm.
    std::string dev = g_root + "/dev/char/226:" + std::to_string(g.render_minor) + "/device";
    mkdirs(dev + "/drm/renderD" + std::to_string(g.render_minor));
    char b[512];
    std::snprintf(b, sizeof b, "0x%04x\n", g.target->device_id);
    put(dev + "/device", b);
    put(dev + "/vendor", "0x1002\n");
    put(dev + "/subsystem_vendor", "0x1002\n");
    put(dev + "/subsystem_device", "0x0c34\n");
    std::snprintf(b, sizeof b, "0x%02x\n", g.target->pci_rev);
    put(dev + "/revision", b);
    std::snprintf(b, sizeof b,
                  "DRIVER=amdgpu\nPCI_CLASS=38000\nPCI_ID=1002:%04X\nPCI_SUBSYS_ID=1002:0C34\n"
                  "PCI_SLOT_NAME=0000:%02x:00.0\n",
                  g.target->device_id, g.location_id >> 8);
    put(dev + "/uevent", b);
    mkdirs(g_root + "/bus/pci");
    symlink((g_root + "/bus/pci").c_str(), (dev + "/subsystem").c_str());
    put(g_root + "/dev/dri/renderD" + std::to_string(g.render_minor), "");
  }
}

bool has_prefix(const char* s, const char* p, size_t* n) {
  *n = std::strlen(p);
  return std::strncmp(s, p, *n) == 0 && (s[*n] == 0 || s[*n] == '/');
}

}  // namespace

const std::string& sysfs_root() {
  std::call_once(g_once, make_root);
  return g_root;
}

void sysfs_cleanup() {
  if (g_root.empty() || getpid() != g_root_owner) return;
  remove_tree(g_root);
}

bool sysfs_translate(const char* path, std::string* out) {
  if (!path || path[0] != '/') return false;
  size_t n;
  const char* rest = nullptr;
  std::string sub;
  if (has_prefix(path, "/sys/devices/virtual/kfd/kfd", &n)) { sub = "/kfd"; rest = path + n; }
  else if (has_prefix(path, "/sys/class/kfd/kfd", &n)) { sub = "/kfd"; rest = path + n; }
  else if (std::strncmp(path, "/sys/dev/char/226:", 18) == 0) {
    unsigned minor = unsigned(std::atoi(path + 18));
    if (!gpu_by_minor(minor)) return false;
    sub = "/dev/char";
    rest = path + 13;
  } else if (std::strcmp(path, "/proc/modules") == 0) {
    sub = "/proc/modules"; rest = "";
  } else if (has_prefix(path, "/sys/module/amdgpu", &n)) {
    sub = "/module/amdgpu"; rest = path + n;
  } else if (has_prefix(path, "/dev/dri", &n) && path[n] == 0) {
    sub = "/dev/dri"; rest = path + n;
  } else {
    return false;
  }
  const std::string& root = sysfs_root();
  if (root.empty()) return false;
  auto build = [](std::once_flag& once, void (*part)()) {
    std::call_once(once, [part] {
      std::lock_guard lk(g_build_mu);
      part();
    });
  };
  if (sub == "/kfd") build(g_once_topology, build_topology);
  else if (sub == "/proc/modules" || sub == "/module/amdgpu") build(g_once_module, build_module);
  else build(g_once_drm, build_drm);
  *out = root + sub + rest;
  return true;
}

}  // namespace emu
