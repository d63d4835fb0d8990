// SPDX-License-Identifier: MIT
// Device properties and attributes of the HIP runtime (hipGetDeviceProperties, hipDeviceGetAttribute).
#pragma once

#include "api/hip/common.h"
#include "gpu/device.h"
#include "loader/target.h"

namespace hip {

class Device;

// The target id code objects must match: processor, sramecc from the node's capability, xnack
// from the process's XNACK mode (only for processors that have the feature).
loader::TargetId device_target(const gpu::Node& node, bool xnack_on);

hipError_t device_attribute(const Device& dev, hipDeviceAttribute_t attr, int* value);

}  // namespace hip
