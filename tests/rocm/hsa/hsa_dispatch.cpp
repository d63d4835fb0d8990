// SPDX-License-Identifier: MIT
// ROCm's own HSA runtime (libhsa-runtime64, unmodified) on the device: finds the GPU, loads a code
// object through the code-object-reader/executable API, dispatches AQL packets, copies with
// hsa_amd_memory_async_copy both ways and fills with hsa_amd_memory_fill; every result checked.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_passed = 0, g_failed = 0;

bool expect(bool ok, const char* what, int line) {
  ok ? ++g_passed : ++g_failed;
  std::printf("%s %s (line %d)\n", ok ? "PASS" : "FAIL", what, line);
  std::fflush(stdout);
  return ok;
}

bool expect_hsa(hsa_status_t s, const char* what, int line) {
  if (s != HSA_STATUS_SUCCESS) {
    const char* msg = nullptr;
    hsa_status_string(s, &msg);
    std::printf("  %s: status 0x%x %s\n", what, unsigned(s), msg ? msg : "");
  }
  return expect(s == HSA_STATUS_SUCCESS, what, line);
}

#define CHECK(c) expect((c), #c, __LINE__)
#define CHECK_HSA(e) expect_hsa((e), #e, __LINE__)

struct Device {
  hsa_agent_t gpu{}, cpu{};
  hsa_amd_memory_pool_t vram{}, system{}, kernarg{};
  bool have_gpu = false, have_cpu = false, have_vram = false, have_system = false, have_kernarg = false;
  uint64_t wait_ticks = 0;  // 60 s in timestamp ticks: a hang becomes a failed check
};

hsa_status_t find_agent(hsa_agent_t a, void* data) {
  auto* d = static_cast<Device*>(data);
  hsa_device_type_t type;
  if (hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  if (type == HSA_DEVICE_TYPE_GPU && !d->have_gpu) d->gpu = a, d->have_gpu = true;
  if (type == HSA_DEVICE_TYPE_CPU && !d->have_cpu) d->cpu = a, d->have_cpu = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t find_gpu_pool(hsa_amd_memory_pool_t p, void* data) {
  auto* d = static_cast<Device*>(data);
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  bool alloc = false;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
  if (seg == HSA_AMD_SEGMENT_GLOBAL && alloc && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) &&
      !d->have_vram)
    d->vram = p, d->have_vram = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t find_cpu_pool(hsa_amd_memory_pool_t p, void* data) {
  auto* d = static_cast<Device*>(data);
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg);
  hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !d->have_kernarg)
    d->kernarg = p, d->have_kernarg = true;
  else if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !d->have_system)
    d->system = p, d->have_system = true;
  return HSA_STATUS_SUCCESS;
}

struct Kernel {
  uint64_t object = 0;
  uint32_t kernarg_size = 0, group_size = 0, private_size = 0;
};

bool find_kernel(hsa_executable_t exe, const Device& d, const char* name, Kernel* k) {
  hsa_executable_symbol_t sym;
  std::string sname = std::string(name) + ".kd";
  if (!CHECK_HSA(hsa_executable_get_symbol_by_name(exe, sname.c_str(), &d.gpu, &sym))) return false;
  bool ok = CHECK_HSA(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->object));
  ok &= CHECK_HSA(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                                 &k->kernarg_size));
  ok &= CHECK_HSA(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                                 &k->group_size));
  ok &= CHECK_HSA(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                                 &k->private_size));
  return ok && CHECK(k->object != 0);
}

bool wait_zero(const Device& d, hsa_signal_t s, const char* what) {
  hsa_signal_value_t v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, d.wait_ticks,
                                                   HSA_WAIT_STATE_BLOCKED);
  if (v != 0) std::printf("  %s: signal still %lld after 60 s\n", what, (long long)v);
  return expect(v == 0, what, __LINE__);
}

// Reserves a packet slot, fills the body, then publishes the header and rings the doorbell.
template <class Fill>
void submit(hsa_queue_t* q, uint16_t header, uint16_t setup, Fill fill) {
  uint64_t idx = hsa_queue_add_write_index_screlease(q, 1);
  while (idx - hsa_queue_load_read_index_scacquire(q) >= q->size) {
  }
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(q->base_address) + (idx % q->size);
  std::memset(reinterpret_cast<uint8_t*>(slot) + 4, 0, sizeof *slot - 4);
  fill(slot);
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), uint32_t(header) | (uint32_t(setup) << 16),
                   __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, hsa_signal_value_t(idx));
}

uint16_t header_of(hsa_packet_type_t type) {
  return uint16_t((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                  (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
}

// Pool allocations are the CPU's alone until access is allowed (ROCr: AllocateRestrict).
bool alloc(hsa_amd_memory_pool_t pool, size_t n, const Device& d, void** p) {
  if (!CHECK_HSA(hsa_amd_memory_pool_allocate(pool, n, 0, p))) return false;
  hsa_agent_t both[2] = {d.gpu, d.cpu};
  return CHECK_HSA(hsa_amd_agents_allow_access(2, both, nullptr, *p));
}

// A 1-D dispatch of `k` with `args` (copied into a fresh kernarg buffer, zero beyond them).
bool dispatch(const Device& d, hsa_queue_t* q, const Kernel& k, const void* args, size_t args_size,
              uint32_t grid, uint16_t wg, uint32_t dynamic_group, hsa_signal_t done) {
  void* kernarg = nullptr;
  size_t ksize = k.kernarg_size > args_size ? k.kernarg_size : args_size;
  if (!alloc(d.kernarg, ksize, d, &kernarg)) return false;
  std::memset(kernarg, 0, ksize);
  std::memcpy(kernarg, args, args_size);
  submit(q, header_of(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1, [&](hsa_kernel_dispatch_packet_t* p) {
    p->workgroup_size_x = wg;
    p->workgroup_size_y = p->workgroup_size_z = 1;
    p->grid_size_x = grid;
    p->grid_size_y = p->grid_size_z = 1;
    p->private_segment_size = k.private_size;
    p->group_segment_size = k.group_size + dynamic_group;
    p->kernel_object = k.object;
    p->kernarg_address = kernarg;
    p->completion_signal = done;
  });
  return true;  // the kernarg buffer stays allocated until hsa_shut_down
}

bool copy(const Device& d, void* dst, hsa_agent_t dst_agent, const void* src, hsa_agent_t src_agent,
          size_t n, hsa_signal_t s, const char* what) {
  hsa_signal_store_relaxed(s, 1);
  if (!CHECK_HSA(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, n, 0, nullptr, s))) return false;
  return wait_zero(d, s, what);
}

bool setup(Device* d) {
  if (!CHECK_HSA(hsa_iterate_agents(find_agent, d)) || !CHECK(d->have_gpu) || !CHECK(d->have_cpu)) return false;
  char name[64] = {};
  CHECK_HSA(hsa_agent_get_info(d->gpu, HSA_AGENT_INFO_NAME, name));
  std::printf("GPU agent %s\n", name);
  CHECK(std::strncmp(name, "gfx", 3) == 0);
  CHECK_HSA(hsa_amd_agent_iterate_memory_pools(d->gpu, find_gpu_pool, d));
  CHECK_HSA(hsa_amd_agent_iterate_memory_pools(d->cpu, find_cpu_pool, d));
  uint64_t freq = 0;
  CHECK_HSA(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq));
  d->wait_ticks = freq * 60;
  return CHECK(d->have_vram) && CHECK(d->have_system) && CHECK(d->have_kernarg) && CHECK(freq > 0);
}

bool load(const Device& d, const char* path, hsa_code_object_reader_t* reader, hsa_executable_t* exe) {
  if (!CHECK_HSA(hsa_code_object_reader_create_from_file(
          [&] { FILE* f = std::fopen(path, "rb"); return f ? fileno(f) : -1; }(), reader)))
    return false;
  if (!CHECK_HSA(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                           nullptr, exe)))
    return false;
  if (!CHECK_HSA(hsa_executable_load_agent_code_object(*exe, d.gpu, *reader, nullptr, nullptr))) return false;
  if (!CHECK_HSA(hsa_executable_freeze(*exe, nullptr))) return false;
  uint32_t bad = 1;
  return CHECK_HSA(hsa_executable_validate(*exe, &bad)) && CHECK(bad == 0);
}

// scale_add through VRAM: host -> VRAM copies, a dispatch, VRAM -> host; then a fill.
void vector_test(const Device& d, hsa_queue_t* q, const Kernel& k, hsa_signal_t s) {
  const uint32_t n = 1 << 20;
  const size_t bytes = n * sizeof(int);
  void *ha, *hb, *hout, *da, *db, *dout;
  if (!alloc(d.system, bytes, d, &ha) || !alloc(d.system, bytes, d, &hb) || !alloc(d.system, bytes, d, &hout) ||
      !alloc(d.vram, bytes, d, &da) || !alloc(d.vram, bytes, d, &db) || !alloc(d.vram, bytes, d, &dout))
    return;
  auto* a = static_cast<int*>(ha);
  auto* b = static_cast<int*>(hb);
  auto* out = static_cast<int*>(hout);
  for (uint32_t i = 0; i < n; ++i) a[i] = int(i % 4093) - 2000, b[i] = int(i * 13 % 997), out[i] = -1;
  copy(d, da, d.gpu, ha, d.cpu, bytes, s, "copy a to VRAM");
  copy(d, db, d.gpu, hb, d.cpu, bytes, s, "copy b to VRAM");
  struct {
    void *a, *b, *out;
    int k;
    uint32_t n;
  } args{da, db, dout, 3, n};
  hsa_signal_store_relaxed(s, 1);
  if (dispatch(d, q, k, &args, sizeof args, n, 256, 0, s)) wait_zero(d, s, "scale_add dispatch");
  copy(d, hout, d.cpu, dout, d.gpu, bytes, s, "copy result from VRAM");
  bool ok = true;
  for (uint32_t i = 0; i < n; ++i) ok &= out[i] == a[i] * 3 + b[i];
  CHECK(ok);
  // hsa_amd_memory_fill (ROCm's fill kernel) on part of the result, then a device-to-device copy.
  CHECK_HSA(hsa_amd_memory_fill(static_cast<uint32_t*>(dout) + 5, 0xa5a5a5a5u, n - 10));
  copy(d, db, d.gpu, dout, d.gpu, bytes, s, "copy VRAM to VRAM");
  copy(d, hout, d.cpu, db, d.gpu, bytes, s, "copy filled result from VRAM");
  ok = true;
  for (uint32_t i = 0; i < n; ++i)
    ok &= uint32_t(out[i]) == ((i >= 5 && i < n - 5) ? 0xa5a5a5a5u : uint32_t(a[i] * 3 + b[i]));
  CHECK(ok);
  // A device-to-device copy at odd offsets and length (ROCm's misaligned copy kernel).
  const size_t odd = bytes - 1000 - 7;
  copy(d, static_cast<uint8_t*>(db) + 3, d.gpu, static_cast<uint8_t*>(da) + 1000, d.gpu, odd, s,
       "misaligned VRAM to VRAM copy");
  copy(d, hout, d.cpu, db, d.gpu, bytes, s, "copy misaligned result from VRAM");
  ok = true;
  auto* bytes_out = static_cast<uint8_t*>(hout);
  auto* bytes_a = static_cast<uint8_t*>(ha);
  for (size_t i = 0; i < odd; ++i) ok &= bytes_out[3 + i] == bytes_a[1000 + i];
  CHECK(ok);
  for (void* p : {ha, hb, hout, da, db, dout}) CHECK_HSA(hsa_amd_memory_pool_free(p));
}

// group_sum with a dynamic group segment, then a barrier-AND packet that waits for it.
void group_test(const Device& d, hsa_queue_t* q, const Kernel& k, hsa_signal_t s, hsa_signal_t s2) {
  const uint32_t wg = 128, groups = 64, n = wg * groups;
  void *hin, *hsums, *din, *dsums;
  if (!alloc(d.system, n * 4, d, &hin) || !alloc(d.system, groups * 4, d, &hsums) ||
      !alloc(d.vram, n * 4, d, &din) || !alloc(d.vram, groups * 4, d, &dsums))
    return;
  auto* in = static_cast<uint32_t*>(hin);
  for (uint32_t i = 0; i < n; ++i) in[i] = i * 7 + 1;
  copy(d, din, d.gpu, hin, d.cpu, n * 4, s, "copy group input to VRAM");
  struct {
    void *in, *sums;
  } args{din, dsums};
  hsa_signal_store_relaxed(s, 1);
  hsa_signal_store_relaxed(s2, 1);
  if (!dispatch(d, q, k, &args, sizeof args, n, wg, wg * 4, s)) return;
  submit(q, header_of(HSA_PACKET_TYPE_BARRIER_AND), 0, [&](hsa_kernel_dispatch_packet_t* p) {
    auto* b = reinterpret_cast<hsa_barrier_and_packet_t*>(p);
    b->dep_signal[0] = s;
    b->completion_signal = s2;
  });
  wait_zero(d, s2, "barrier-AND after group_sum");
  CHECK(hsa_signal_load_scacquire(s) == 0);
  copy(d, hsums, d.cpu, dsums, d.gpu, groups * 4, s, "copy sums from VRAM");
  bool ok = true;
  for (uint32_t g = 0; g < groups; ++g) {
    uint32_t want = 0;
    for (uint32_t t = 0; t < wg; ++t) want += in[g * wg + t];
    ok &= static_cast<uint32_t*>(hsums)[g] == want;
  }
  CHECK(ok);
  for (void* p : {hin, hsums, din, dsums}) CHECK_HSA(hsa_amd_memory_pool_free(p));
}

// A large copy each way (ROCm splits it over its copy engines' limits).
void large_copy_test(const Device& d, hsa_signal_t s) {
  const size_t n = 40u << 20;
  void *h1, *h2, *dv;
  if (!alloc(d.system, n, d, &h1) || !alloc(d.system, n, d, &h2) || !alloc(d.vram, n, d, &dv)) return;
  auto* p1 = static_cast<uint8_t*>(h1);
  for (size_t i = 0; i < n; ++i) p1[i] = uint8_t(i * 2654435761u >> 13);
  std::memset(h2, 0, n);
  copy(d, dv, d.gpu, h1, d.cpu, n, s, "40 MiB to VRAM");
  copy(d, h2, d.cpu, dv, d.gpu, n, s, "40 MiB from VRAM");
  CHECK(std::memcmp(h1, h2, n) == 0);
  for (void* p : {h1, h2, dv}) CHECK_HSA(hsa_amd_memory_pool_free(p));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CODE_OBJECT\n", argv[0]);
    return 2;
  }
  if (!CHECK_HSA(hsa_init())) return 1;
  Device d;
  hsa_code_object_reader_t reader{};
  hsa_executable_t exe{};
  hsa_queue_t* q = nullptr;
  if (setup(&d) && load(d, argv[1], &reader, &exe) &&
      CHECK_HSA(hsa_queue_create(d.gpu, 1024, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q))) {
    Kernel scale_add, group_sum;
    hsa_signal_t s, s2;
    CHECK_HSA(hsa_signal_create(1, 0, nullptr, &s));
    CHECK_HSA(hsa_signal_create(1, 0, nullptr, &s2));
    if (find_kernel(exe, d, "scale_add", &scale_add)) vector_test(d, q, scale_add, s);
    if (find_kernel(exe, d, "group_sum", &group_sum)) group_test(d, q, group_sum, s, s2);
    large_copy_test(d, s);
    CHECK_HSA(hsa_signal_destroy(s));
    CHECK_HSA(hsa_signal_destroy(s2));
    CHECK_HSA(hsa_queue_destroy(q));
  }
  if (exe.handle) CHECK_HSA(hsa_executable_destroy(exe));
  if (reader.handle) CHECK_HSA(hsa_code_object_reader_destroy(reader));
  CHECK_HSA(hsa_shut_down());
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 && g_passed > 0 ? 0 : 1;
}
