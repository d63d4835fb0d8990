// SPDX-License-Identifier: MIT
// The HIP version kfdrt's headers and runtime implement (read by clang's HIP wrapper and by programs).
#pragma once

#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 0
#define HIP_VERSION_PATCH 0
#define HIP_VERSION_GITHASH "kfdrt"
#define HIP_VERSION_BUILD_ID 0
#define HIP_VERSION_BUILD_NAME "kfdrt"
// HIP's encoding: major * 10000000 + minor * 100000 + patch.
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)

#define __HIP_HAS_GET_PCH 0
