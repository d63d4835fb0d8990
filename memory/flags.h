// SPDX-License-Identifier: MIT
// Pure mapping of an allocation request onto KFD_IOC_ALLOC_MEM_FLAGS_* bits.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "memory/types.h"

namespace mem {

// The ALLOC_MEMORY_OF_GPU flags for a request (Linux kfd_ioctl.h KFD_IOC_ALLOC_MEM_FLAGS_*).
// Rejects combinations the kernel would reject or that make no sense (uncached VRAM without host
// access is allowed; a read-only doorbell is not).
base::Result<uint32_t> alloc_flags(const AllocRequest& r);

// Human-readable flag list for error messages: "GTT|WRITABLE|UNCACHED".
std::string describe_flags(uint32_t flags);

}  // namespace mem
