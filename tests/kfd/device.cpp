// SPDX-License-Identifier: MIT
// Opens the device once for the kfd device tests and implements the same-address test Buffer.
#include "tests/kfd/device.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>

namespace kfdtest {

namespace {

base::Result<Device*> open_device() {
  auto d = std::make_unique<Device>();
  KFD_ASSIGN(d->kfd, kfd::Kfd::open());
  KFD_ASSIGN(d->topo, kfd::read_topology());
  for (const kfd::Node* n : d->topo.gpus()) {
    Gpu g;
    g.node = n;
    g.gpu_id = n->gpu_id;
    g.sizes = pm4::queue_buffer_sizes(n->props);
    KFD_ASSIGN(g.render, kfd::RenderNode::open(n->props.drm_render_minor));
    KFD_TRY(d->kfd.acquire_vm(g.gpu_id, g.render.fd()));
    d->gpus.push_back(std::move(g));
  }
  if (d->gpus.empty()) return base::Error::msg("no GPU node in the KFD topology", ENODEV);
  return d.release();  // lives until exit, like a runtime's device
}

}  // namespace

Device* device(std::string* why) {
  static std::once_flag once;
  static Device* dev = nullptr;
  static std::string error;
  std::call_once(once, [] {
    auto r = open_device();
    if (r) dev = *r;
    else error = r.message();
  });
  if (!dev && why) *why = error;
  return dev;
}

void DeviceTest::SetUp() {
  std::string why;
  dev_ = device(&why);
  ASSERT_NE(dev_, nullptr) << "no KFD device: " << why
                           << " (run with LD_PRELOAD=<build>/emu/libkfdemu.so for the emulator)";
}

base::Result<Buffer> Buffer::make(Device& d, Gpu& g, Kind kind, size_t size, uint32_t extra_flags,
                                 bool cpu) {
  Buffer b;
  b.dev_ = &d;
  b.gpu_id_ = g.gpu_id;
  b.size_ = (size + kPage - 1) / kPage * kPage;
  // Userptr memory is ordinary anonymous memory; the others reserve VA only.
  const bool user = kind == Kind::Userptr;
  void* va = ::mmap(nullptr, b.size_, user ? PROT_READ | PROT_WRITE : PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | (user ? 0 : MAP_NORESERVE), -1, 0);
  if (va == MAP_FAILED) return base::Error::from_errno("mmap reserve", errno);
  b.va_ = reinterpret_cast<uintptr_t>(va);
  b.own_va_ = true;
  uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE | extra_flags;
  flags |= kind == Kind::Vram ? KFD_IOC_ALLOC_MEM_FLAGS_VRAM
           : kind == Kind::Gtt ? KFD_IOC_ALLOC_MEM_FLAGS_GTT
                               : KFD_IOC_ALLOC_MEM_FLAGS_USERPTR;
  // VRAM the CPU maps is host-visible (PUBLIC): only a large-BAR GPU grants it, and without it
  // amdgpu refuses the CPU mapping of a BO created without CPU access.
  if (kind == Kind::Vram && cpu) flags |= KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC;
  KFD_ASSIGN(kfd::Allocation a, d.kfd.alloc_memory(g.gpu_id, b.va_, b.size_, flags,
                                                   user ? b.va_ : 0));
  b.handle_ = a.handle;
  if (cpu && !user) {
    KFD_TRY(g.render.mmap(va, b.size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                          a.mmap_offset));
  }
  const uint32_t ids[] = {g.gpu_id};
  KFD_ASSIGN(uint32_t done, d.kfd.map_memory(b.handle_, ids));
  if (done != 1) return base::Error::msg("MAP_MEMORY_TO_GPU: n_success=" + std::to_string(done));
  b.mapped_ = true;
  return b;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    dev_ = std::exchange(o.dev_, nullptr);
    gpu_id_ = o.gpu_id_;
    va_ = std::exchange(o.va_, 0);
    size_ = std::exchange(o.size_, 0);
    handle_ = std::exchange(o.handle_, 0);
    mapped_ = std::exchange(o.mapped_, false);
    own_va_ = std::exchange(o.own_va_, false);
  }
  return *this;
}

void Buffer::release() {
  if (!dev_) return;
  const uint32_t ids[] = {gpu_id_};
  if (mapped_) {
    auto r = dev_->kfd.unmap_memory(handle_, ids);
    EXPECT_TRUE(r.ok()) << r.message();
  }
  if (own_va_) ::munmap(ptr(), size_);
  if (handle_) {
    auto r = dev_->kfd.free_memory(handle_);
    EXPECT_TRUE(r.ok()) << r.message();
  }
  dev_ = nullptr;
  mapped_ = own_va_ = false;
  handle_ = 0;
}

::testing::AssertionResult failed_with(const base::Error& e, int err, const char* ioctl) {
  if (e.err != err)
    return ::testing::AssertionFailure()
           << "errno " << e.err << " (" << strerror(e.err) << "), expected " << err << " ("
           << strerror(err) << "): " << e.message;
  // "<ioctl>: <errno text> (<key values>)": the name, the errno's text, then the arguments.
  const std::string head = std::string(ioctl) + ": " + strerror(err) + " (";
  if (e.message.rfind(head, 0) != 0)
    return ::testing::AssertionFailure() << "message does not start with \"" << head << "\": " << e.message;
  if (e.message.back() != ')' || e.message.size() <= head.size() + 1)
    return ::testing::AssertionFailure() << "message carries no argument values: " << e.message;
  return ::testing::AssertionSuccess();
}

}  // namespace kfdtest
