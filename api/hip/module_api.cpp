// SPDX-License-Identifier: MIT
// HIP module API: code objects or bundles loaded at run time, their kernels, globals and launches.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <unordered_set>

#include "api/hip/launch.h"

using namespace hip;

namespace {

struct Module {
  std::unique_ptr<Image> image;
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Function>, std::less<>> functions;
};

struct ModuleSet {
  std::mutex mu;
  std::unordered_set<Module*> live;
};
ModuleSet& modules() {
  static ModuleSet* s = new ModuleSet();
  return *s;
}

Module* module_of(hipModule_t h) {
  std::lock_guard lk(modules().mu);
  auto* m = reinterpret_cast<Module*>(h);
  return h && modules().live.count(m) ? m : nullptr;
}

hipError_t load_error(const char* api, const base::Error& e) {
  debug_log(api, e.message);
  if (e.err == ENOEXEC) return hipErrorNoBinaryForGpu;
  return from_error(e, hipErrorInvalidImage);
}

hipError_t load(hipModule_t* out, std::vector<uint8_t> bytes) {
  HIP_INIT(rt);
  auto m = std::make_unique<Module>();
  m->image = Image::owned(std::move(bytes));
  auto di = m->image->on(rt->current());  // HIP loads on the current device at once
  if (!di) return load_error("hipModuleLoad", di.error());
  std::lock_guard lk(modules().mu);
  modules().live.insert(m.get());
  *out = reinterpret_cast<hipModule_t>(m.release());
  return hipSuccess;
}

bool read_file(const char* path, std::vector<uint8_t>* out, int* err) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  uint8_t buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out->insert(out->end(), buf, buf + n);
  }
  ::close(fd);
  return true;
}

}  // namespace

HIP_EXPORT hipError_t hipModuleLoadData(hipModule_t* out, const void* image) {
  if (!out || !image) return ret(hipErrorInvalidValue);
  auto* p = static_cast<const uint8_t*>(image);
  // Read no further than the caller's mapping goes: a corrupt header must not send us past it.
  size_t n = image_extent(p, mapped_extent(p));
  if (n == 0) return ret(hipErrorInvalidImage);
  return ret(load(out, std::vector<uint8_t>(p, p + n)));
}

HIP_EXPORT hipError_t hipModuleLoadDataEx(hipModule_t* out, const void* image, unsigned int, hipJitOption*,
                                          void**) {
  return hipModuleLoadData(out, image);
}

HIP_EXPORT hipError_t hipModuleLoad(hipModule_t* out, const char* fname) {
  if (!out || !fname) return ret(hipErrorInvalidValue);
  std::vector<uint8_t> bytes;
  int err = 0;
  if (!read_file(fname, &bytes, &err)) return ret(err == ENOENT ? hipErrorFileNotFound : hipErrorInvalidValue);
  if (bytes.size() < 64 || image_extent(bytes.data(), bytes.size()) == 0) return ret(hipErrorInvalidImage);
  return ret(load(out, std::move(bytes)));
}

HIP_EXPORT hipError_t hipModuleUnload(hipModule_t h) {
  Module* m = module_of(h);
  if (!m) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  for (int i = 0; i < rt->device_count(); ++i) (void)rt->device(i)->synchronize("hipModuleUnload");
  {
    std::lock_guard lk(modules().mu);
    modules().live.erase(m);
  }
  delete m;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipModuleGetFunction(hipFunction_t* out, hipModule_t h, const char* name) {
  if (!out || !name) return ret(hipErrorInvalidValue);
  Module* m = module_of(h);
  if (!m) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  std::lock_guard lk(m->mu);
  auto it = m->functions.find(std::string_view(name));
  if (it == m->functions.end()) {
    auto f = std::make_unique<Function>();
    f->image = m->image.get();
    f->name = name;
    auto info = f->info(rt->current());
    if (!info) {
      debug_log("hipModuleGetFunction", info.message());
      return ret(info.err() == ENOENT ? hipErrorNotFound : load_error("hipModuleGetFunction", info.error()));
    }
    it = m->functions.emplace(name, std::move(f)).first;
  }
  *out = reinterpret_cast<hipFunction_t>(it->second.get());
  return hipSuccess;
}

HIP_EXPORT hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t h, const char* name) {
  if (!name || (!dptr && !bytes)) return ret(hipErrorInvalidValue);
  Module* m = module_of(h);
  if (!m) return ret(hipErrorInvalidHandle);
  HIP_INIT(rt);
  auto di = m->image->on(rt->current());
  if (!di) return ret(load_error("hipModuleGetGlobal", di.error()));
  auto g = (*di)->global(name);
  if (!g) return ret(hipErrorNotFound);
  if (dptr) *dptr = reinterpret_cast<void*>(g->address);
  if (bytes) *bytes = g->size;
  return hipSuccess;
}

HIP_EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
                                            unsigned int gz, unsigned int bx, unsigned int by,
                                            unsigned int bz, unsigned int shared, hipStream_t stream,
                                            void** params, void** extra) {
  if (!f) return ret(hipErrorInvalidHandle);
  if (params && extra) return ret(hipErrorInvalidValue);
  ArgSource args;
  args.params = params;
  if (extra)
    if (hipError_t e = parse_launch_extra(extra, &args); e != hipSuccess) return ret(e);
  return ret(launch(reinterpret_cast<Function*>(f), dim3(gx, gy, gz), dim3(bx, by, bz), shared, stream,
                    args, "hipModuleLaunchKernel"));
}

HIP_EXPORT hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attr, hipFunction_t f) {
  if (!value || !f) return ret(hipErrorInvalidValue);
  hipFuncAttributes a;
  if (hipError_t e = kernel_attributes(reinterpret_cast<Function*>(f), &a); e != hipSuccess) return ret(e);
  switch (attr) {
    case HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(a.sharedSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = int(a.constSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = int(a.localSizeBytes); break;
    case HIP_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
    case HIP_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
    case HIP_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
    case HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA: *value = a.cacheModeCA; break;
    case HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
    case HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a.preferredShmemCarveout; break;
    default: return ret(hipErrorInvalidValue);
  }
  return hipSuccess;
}
