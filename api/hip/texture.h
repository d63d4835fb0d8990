// SPDX-License-Identifier: MIT
// Arrays as the copy paths see them: linear device memory with padded rows (texture_api.cpp
// allocates and registers them; copy_api.cpp copies to and from them).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hip/hip_runtime_api.h"

namespace hip {

struct ArrayGeom {
  uint8_t* data = nullptr;   // texel (0, 0, 0): device memory
  size_t elem = 0;           // bytes per element
  size_t row_bytes = 0;      // width * elem: the bytes a row holds
  size_t pitch = 0;          // bytes between rows
  size_t rows = 1;           // rows per slice (1 for a 1-D array)
  size_t slices = 1;         // slices (3-D depth or layers)
  size_t slice_bytes() const { return pitch * rows; }
};

// The geometry of a live array; false when `a` is not one (never made, or freed).
bool array_geom(const hipArray* a, ArrayGeom* g);

}  // namespace hip
