// SPDX-License-Identifier: MIT
// Makes <linux/kfd_ioctl.h> compile on Debian, whose drm.h lives at <libdrm/drm.h>, not <drm/drm.h>.
// This forwards to the system header; it holds no definitions of its own.
#pragma once
#if __has_include(<libdrm/drm.h>)
#include <libdrm/drm.h>
#else
#include_next <drm/drm.h>
#endif
