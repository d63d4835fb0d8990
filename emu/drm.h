// SPDX-License-Identifier: MIT
// The emulated amdgpu render node: the DRM ioctls libdrm_amdgpu needs to initialise and query a device.
#pragma once

namespace emu {

// Returns 0 or a negative errno.
int drm_ioctl(unsigned minor, int fd, unsigned long request, void* arg);

}  // namespace emu
