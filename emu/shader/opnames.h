// SPDX-License-Identifier: MIT
// Opcode mnemonics per target: one gfx9 base table per encoding and each generation's deltas.
#pragma once

#include <cstdint>
#include <span>

#include "emu/shader/shader.h"

namespace emu::shader {

// Rows of the name tables: Enc order (SOP2..MUBUF), SCRATCH in MTBUF's slot, then GLOBAL and the
// image (MIMG) table.
constexpr unsigned kEncodingRows = 16;
constexpr unsigned kGlobalRow = 15;
constexpr unsigned kMimgRow = 16;
constexpr unsigned kNameRows = 17;
constexpr unsigned kRowOpcodes = 1024;  // VOP3's 10-bit opcode is the widest
constexpr unsigned kMimgOpcodes = 128;

// One difference of a generation from its parent: opcodes first..last of `row` are named `name`
// (first == last), or are invalid (name == nullptr).
struct OpNameDelta {
  uint8_t row;
  uint16_t first;
  uint16_t last;
  const char* name;
};

// A generation's place in the tree: its parent (the gfx9 base has none) and its deltas.
struct OpNameGeneration {
  Target target;
  const OpNameGeneration* parent;
  std::span<const OpNameDelta> deltas;
};

// The generation of a target (unknown targets get gfx90a's, as the decoder always did).
const OpNameGeneration& op_name_generation(Target t);

// The mnemonic of opcode `op` in name row `row` on target t, or nullptr for an invalid opcode.
// Pointers stay valid for the program's lifetime.
const char* op_name(Target t, unsigned row, unsigned op);

// Every opcode's mnemonic on target t at once, as op_name answers it: out[row][op] for all
// kNameRows rows (the MIMG row's opcodes past kMimgOpcodes are nullptr). One pass over the base
// table and the deltas, for building a target's opcode table (op_name per opcode searches the
// deltas each time).
void op_names(Target t, const char* (*out)[kRowOpcodes]);

}  // namespace emu::shader
