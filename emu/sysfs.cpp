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
#include <utility>
#include <vector>

#include "emu/device_model.h"
#include "emu/interpose.h"

namespace emu {

namespace {

// The tree is made of three parts, each materialised when a path in it is first translated (a
// process that never looks at the DRM or module entries, as kfdrt's runtime, does not need them).
// A part is described in memory first and stored under a name that carries its content's hash,
// in a directory the user's processes share: the first process to need a part writes it (into a
// private directory, renamed into place at once), later ones find it with one stat. Building and
// removing the tree in every process was a tenth of a millisecond of each one's start-up and as
// much at its exit. A part whose shared name another user holds is written privately instead and
// removed at exit.
struct Part {
  std::vector<std::string> dirs;                             // relative to the part's root
  std::vector<std::pair<std::string, std::string>> files;    // path, text
  std::vector<std::pair<std::string, std::string>> links;    // path, target (relative)
  void dir(const std::string& d) { dirs.push_back(d); }
  void put(const std::string& path, const std::string& text) { files.emplace_back(path, text); }
  void link(const std::string& path, const std::string& target) { links.emplace_back(path, target); }
};

std::once_flag g_once_topology, g_once_drm, g_once_module;
std::string g_topology_root, g_drm_root, g_module_root;
std::mutex g_private_mu;
std::vector<std::string> g_private;  // private parts this process made (removed at exit)
pid_t g_private_owner = 0;

uint64_t fnv1a(uint64_t h, const std::string& s) {
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return (h ^ 0xff) * 0x100000001b3ull;  // a separator no text contains
}

// Directories made while writing a part: each once, its parents not tried again.
void mkdirs(std::set<std::string>& made, const std::string& path) {
  if (path.empty() || made.count(path)) return;
  mkdirs(made, path.substr(0, path.rfind('/')));
  real_mkdir(path.c_str(), 0755);
  made.insert(path);
}

// Whether every file and link was written whole (a full file system): only a complete part is
// shared, since later processes would take an incomplete one as it is.
bool write_part(const std::string& root, const Part& part) {
  std::set<std::string> made{root};
  bool whole = true;
  for (const auto& d : part.dirs) mkdirs(made, root + "/" + d);
  for (const auto& [path, text] : part.files) {
    const std::string full = root + "/" + path;
    mkdirs(made, full.substr(0, full.rfind('/')));
    int fd = real_open(full.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      whole = false;
      continue;
    }
    const ssize_t w = write(fd, text.data(), text.size());
    if (w != ssize_t(text.size()) || close(fd) != 0) whole = false;
  }
  for (const auto& [path, target] : part.links) {
    const std::string full = root + "/" + path;
    mkdirs(made, full.substr(0, full.rfind('/')));
    if (symlink(target.c_str(), full.c_str()) != 0) whole = false;
  }
  return whole;
}

// A shared part is usable when it is a directory of this user that no one else may write.
bool usable(const std::string& dir) {
  struct stat st;
  return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
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

// The part's root: the shared copy (written now if no process wrote it yet), or a private one.
std::string materialise(const char* name, const Part& part) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const auto& d : part.dirs) h = fnv1a(h, d);
  for (const auto& [path, text] : part.files) h = fnv1a(fnv1a(h, path), text);
  for (const auto& [path, target] : part.links) h = fnv1a(fnv1a(h, path), target);
  char suffix[96];
  std::snprintf(suffix, sizeof suffix, "kfdemu-sysfs-u%u-%s-%016llx", unsigned(geteuid()), name,
                static_cast<unsigned long long>(h));
  // On a memory file system when there is one (/dev/shm); on a disk file system (ext4 /tmp)
  // writing the tree was most of a program's start-up time.
  for (const char* dir : {"/dev/shm", "/tmp"}) {
    const std::string shared = std::string(dir) + "/" + suffix;
    if (usable(shared)) return shared;
    // Written under a name with our pid (sweep_stale_trees removes it if we die now), then
    // renamed into place; another process may have done the same meanwhile.
    std::string tmp = std::string(dir) + "/kfdemu-sysfs-" + std::to_string(getpid()) + "-XXXXXX";
    if (!mkdtemp(tmp.data())) continue;
    const bool whole = write_part(tmp, part);
    chmod(tmp.c_str(), 0755);
    if (whole && rename(tmp.c_str(), shared.c_str()) == 0) return shared;
    if (usable(shared)) {
      remove_tree(tmp);
      return shared;
    }
    // Incomplete, or the shared name is someone else's: ours stays private (removed at exit).
    std::lock_guard lk(g_private_mu);
    g_private.push_back(tmp);
    g_private_owner = getpid();
    return tmp;
  }
  std::perror("kfdemu: cannot write the emulated sysfs (/dev/shm and /tmp)");
  return {};
}

// /proc/modules and /sys/module/amdgpu.
void build_module(Part& p) {
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
  p.put("proc/modules", modules);
  // /sys/module/amdgpu as kmod (lsmod, which rocminfo runs) reads it for a loaded module.
  p.put("module/amdgpu/initstate", "live\n");
  p.put("module/amdgpu/refcnt", "0\n");
  p.put("module/amdgpu/coresize", "15028224\n");
  p.put("module/amdgpu/initsize", "0\n");
  p.put("module/amdgpu/taint", "\n");
  p.dir("module/amdgpu/holders");
}

// /sys/class/kfd/kfd/topology.
void build_topology(Part& p) {
  const Model& m = model();
  const std::string topo = "kfd/topology";
  p.put(topo + "/generation_id", "1\n");
  p.put(topo + "/system_properties", "platform_oem 0\nplatform_id 0\nplatform_rev 0\n");
  std::string cpu = topo + "/nodes/0";
  p.put(cpu + "/gpu_id", "0\n");
  p.put(cpu + "/name", "\n");
  p.put(cpu + "/properties", cpu_node_properties());
  p.put(cpu + "/mem_banks/0/properties", mem_bank(0, m.host_mem_bytes));
  for (const auto& g : m.gpus) {
    p.put(cpu + "/io_links/" + std::to_string(g.index) + "/properties", io_link(0, g.node_id));
    std::string n = topo + "/nodes/" + std::to_string(g.node_id);
    p.put(n + "/gpu_id", std::to_string(g.gpu_id) + "\n");
    p.put(n + "/name", std::string(g.target->asic) + "\n");
    p.put(n + "/properties", gpu_node_properties(g));
    // kfd_crat.c kfd_create_vcrat_image_gpu: a large-BAR part reports its VRAM as one public
    // heap (HSA_MEM_HEAP_TYPE_FB_PUBLIC 1); any other the whole VRAM as one private heap (2).
    p.put(n + "/mem_banks/0/properties", mem_bank(g.large_bar() ? 1 : 2, g.vram_bytes));
    uint32_t simd0 = 0x80001000u + g.index * 0x1000u;
    p.put(n + "/caches/0/properties", cache(1, 16, 1 | 8, simd0));     // L1 vector cache per CU (data, HSACU)
    p.put(n + "/caches/1/properties", cache(2, 8192, 1 | 8, simd0));   // L2 (data, HSACU)
    p.put(n + "/io_links/0/properties", io_link(g.node_id, 0));
    // Peer links to the other GPUs (large BAR, PCIe P2P: amdgpu_device_is_peer_accessible), as
    // kfd_dev_create_p2p_links publishes them under p2p_links.
    uint32_t k = 0;
    for (const auto& h : m.gpus)
      if (h.node_id != g.node_id)
        p.put(n + "/p2p_links/" + std::to_string(k++) + "/properties", io_link(g.node_id, h.node_id, 40));
  }
}

// /sys/dev/char/226:<minor> and /dev/dri.
void build_drm(Part& p) {
  for (const auto& g : model().gpus) {
    // DRM side: /sys/dev/char/226:<minor>/device/{drm,vendor,device,...} for libdrm.
    const std::string dev = "dev/char/226:" + std::to_string(g.render_minor) + "/device";
    p.dir(dev + "/drm/renderD" + std::to_string(g.render_minor));
    char b[512];
    std::snprintf(b, sizeof b, "0x%04x\n", g.target->device_id);
    p.put(dev + "/device", b);
    p.put(dev + "/vendor", "0x1002\n");
    p.put(dev + "/subsystem_vendor", "0x1002\n");
    p.put(dev + "/subsystem_device", "0x0c34\n");
    std::snprintf(b, sizeof b, "0x%02x\n", g.target->pci_rev);
    p.put(dev + "/revision", b);
    std::snprintf(b, sizeof b,
                  "DRIVER=amdgpu\nPCI_CLASS=38000\nPCI_ID=1002:%04X\nPCI_SUBSYS_ID=1002:0C34\n"
                  "PCI_SLOT_NAME=0000:%02x:00.0\n",
                  g.target->device_id, g.location_id >> 8);
    p.put(dev + "/uevent", b);
    p.dir("bus/pci");
    p.link(dev + "/subsystem", "../../../../bus/pci");  // relative: the part is renamed into place
    p.put("dev/dri/renderD" + std::to_string(g.render_minor), "");
  }
}

bool has_prefix(const char* s, const char* p, size_t* n) {
  *n = std::strlen(p);
  return std::strncmp(s, p, *n) == 0 && (s[*n] == 0 || s[*n] == '/');
}

}  // namespace

void sysfs_cleanup() {
  std::lock_guard lk(g_private_mu);
  if (getpid() != g_private_owner) return;
  for (const auto& d : g_private) remove_tree(d);
  g_private.clear();
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
  auto part = [](std::once_flag& once, std::string& root, const char* name, void (*build)(Part&)) -> const std::string& {
    std::call_once(once, [&] {
      static std::once_flag swept;  // trees of killed processes (a part they were writing)
      std::call_once(swept, [] { sweep_stale_trees("/dev/shm"); });
      Part p;
      build(p);
      root = materialise(name, p);
    });
    return root;
  };
  const std::string& root = sub == "/kfd" ? part(g_once_topology, g_topology_root, "topology", build_topology)
                            : sub == "/proc/modules" || sub == "/module/amdgpu"
                                ? part(g_once_module, g_module_root, "module", build_module)
                                : part(g_once_drm, g_drm_root, "drm", build_drm);
  if (root.empty()) return false;
  *out = root + sub + rest;
  return true;
}

}  // namespace emu
