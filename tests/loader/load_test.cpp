// SPDX-License-Identifier: MIT
// Tests of loading: segments copied, relocations applied, symbols resolved, bad relocations rejected.
#include <gtest/gtest.h>

#include <cstring>

#include "loader/load.h"
#include "test_util.h"

using loader::CodeObject;
using loader::HostSegmentMemory;
using loader::LoadedCodeObject;

namespace {

uint64_t read64(uint64_t address) {
  uint64_t v;
  std::memcpy(&v, reinterpret_cast<const void*>(address), 8);
  return v;
}

// Records requests so tests can check what the loader asked for.
struct RecordingMemory : HostSegmentMemory {
  base::Result<loader::Span> allocate(size_t size, size_t align, bool executable) override {
    last_size = size;
    last_align = align;
    last_exec = executable;
    return HostSegmentMemory::allocate(size, align, executable);
  }
  size_t last_size = 0, last_align = 0;
  bool last_exec = false;
};

TEST(Load, CopiesSegmentsAndResolvesKernels) {
  auto bytes = loader_test::read_data("vector_add-gfx90a.co");
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  RecordingMemory mem;
  {
    auto lco = LoadedCodeObject::load(*co, mem);
    ASSERT_TRUE(lco.ok()) << lco.message();
    EXPECT_TRUE(mem.last_exec);
    EXPECT_EQ(mem.last_size, co->vaddr_span());
    EXPECT_EQ(lco->memory().gpu_address() % mem.last_align, 0u);
    auto kd = lco->kernel_object("vector_add");
    ASSERT_TRUE(kd.ok()) << kd.message();
    EXPECT_EQ(*kd % 64, 0u);
    // The descriptor bytes in memory are the ones the code object parsed.
    EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(*kd), &co->find_kernel("vector_add")->descriptor, 64), 0);
    for (const auto& ph : co->elf().segments()) {
      if (ph.type != loader::kPtLoad) continue;
      EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(lco->address_of(ph.vaddr)), bytes.data() + ph.offset, ph.filesz), 0);
      std::vector<uint8_t> zeros(ph.memsz - ph.filesz, 0);
      if (!zeros.empty()) {
        EXPECT_EQ(std::memcmp(reinterpret_cast<const void*>(lco->address_of(ph.vaddr + ph.filesz)), zeros.data(), zeros.size()), 0);
      }
    }
    EXPECT_EQ(lco->kernel_object("missing").message(), "code object has no kernel 'missing'");
    EXPECT_EQ(mem.live_allocations(), 1u);
  }
  EXPECT_EQ(mem.live_allocations(), 0u);  // freed with the LoadedCodeObject
}

class LoadGlobals : public ::testing::TestWithParam<std::string> {};

// kt_table_ptr = &kt_table[2] and kt_buffer_ptr = &kt_buffer[1] need R_AMDGPU_RELATIVE64.
TEST_P(LoadGlobals, AppliesRelativeRelocations) {
  auto bytes = loader_test::read_data(GetParam());
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  HostSegmentMemory mem;
  auto lco = LoadedCodeObject::load(*co, mem);
  ASSERT_TRUE(lco.ok()) << lco.message();
  auto table = lco->global("kt_table"), table_ptr = lco->global("kt_table_ptr");
  auto buffer = lco->global("kt_buffer"), buffer_ptr = lco->global("kt_buffer_ptr");
  ASSERT_TRUE(table.ok() && table_ptr.ok() && buffer.ok() && buffer_ptr.ok());
  EXPECT_EQ(read64(table_ptr->address), table->address + 2 * sizeof(int));
  EXPECT_EQ(read64(buffer_ptr->address), buffer->address + 1 * sizeof(float));
  int t[8];
  std::memcpy(t, reinterpret_cast<const void*>(table->address), sizeof t);
  EXPECT_EQ(t[0], 1);
  EXPECT_EQ(t[7], 34);
  EXPECT_EQ(table->size, 32u);
  EXPECT_EQ(lco->global("nope").message(), "code object has no global variable 'nope'");
}

INSTANTIATE_TEST_SUITE_P(Targets, LoadGlobals,
                         ::testing::Values("global_var-gfx90a.co", "global_var-gfx908.co", "global_var-gfx1030.co",
                                           "global_var-gfx942.co", "global_var_v6-gfx942.co",
                                           "global_var_v6-gfx9-generic.co"),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.size() - 3);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// Offsets of the .rela.dyn entries and of the symbol named `name` in .dynsym.
struct RelaInfo {
  uint64_t rela_off = 0;
  uint32_t sym_index = 0;
};

RelaInfo locate(const CodeObject& co, const std::string& sym_name) {
  RelaInfo r;
  const loader::Section* rs = co.elf().find_section(".rela.dyn");
  EXPECT_NE(rs, nullptr);
  r.rela_off = rs->offset;
  auto syms = co.elf().symbols(co.elf().sections()[rs->link]);
  for (size_t i = 0; i < syms->size(); ++i)
    if ((*syms)[i].name == sym_name) r.sym_index = uint32_t(i);
  return r;
}

TEST(Load, AppliesAbs64Relocation) {
  // Rewrite the first relocation as R_AMDGPU_ABS64 against kt_buffer + 12: S + A.
  auto bytes = loader_test::read_data("global_var-gfx90a.co");
  auto co0 = CodeObject::parse(bytes);
  ASSERT_TRUE(co0.ok());
  RelaInfo ri = locate(*co0, "kt_buffer");
  ASSERT_NE(ri.sym_index, 0u);
  uint64_t target;
  std::memcpy(&target, bytes.data() + ri.rela_off, 8);
  loader_test::put_le<uint64_t>(bytes, ri.rela_off + 8, (uint64_t(ri.sym_index) << 32) | 3);
  loader_test::put_le<int64_t>(bytes, ri.rela_off + 16, 12);
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  HostSegmentMemory mem;
  auto lco = LoadedCodeObject::load(*co, mem);
  ASSERT_TRUE(lco.ok()) << lco.message();
  EXPECT_EQ(read64(lco->address_of(target)), lco->global("kt_buffer")->address + 12);

  // Make kt_buffer undefined: a global binding is an error, a weak one resolves to 0 (+ A).
  const loader::Section* rs = co->elf().find_section(".rela.dyn");
  uint64_t sym_entry = co->elf().sections()[rs->link].offset + 24 * ri.sym_index;
  loader_test::put_le<uint16_t>(bytes, sym_entry + 6, 0);  // st_shndx = SHN_UNDEF
  auto undef = CodeObject::parse(bytes);
  ASSERT_TRUE(undef.ok()) << undef.message();
  EXPECT_EQ(LoadedCodeObject::load(*undef, mem).message(),
            ".rela.dyn r_info at offset " + base::hex(ri.rela_off + 8) + ": undefined symbol 'kt_buffer'");
  bytes[sym_entry + 4] = uint8_t((2 << 4) | (bytes[sym_entry + 4] & 0xF));  // STB_WEAK
  auto weak = CodeObject::parse(bytes);
  ASSERT_TRUE(weak.ok()) << weak.message();
  auto wl = LoadedCodeObject::load(*weak, mem);
  ASSERT_TRUE(wl.ok()) << wl.message();
  EXPECT_EQ(read64(wl->address_of(target)), 12u);
}

TEST(Load, OutlivesItsCodeObject) {
  HostSegmentMemory mem(1u << 20);
  auto lco = [&] {
    auto bytes = loader_test::read_data("global_var-gfx942.co");
    auto co = CodeObject::parse(bytes);
    EXPECT_TRUE(co.ok()) << co.message();
    return LoadedCodeObject::load(*co, mem);
  }();  // the bytes and the CodeObject are gone here
  ASSERT_TRUE(lco.ok()) << lco.message();
  EXPECT_TRUE(lco->kernel_object("bump").ok());
  EXPECT_EQ(lco->global("kt_table")->size, 32u);
  auto big = loader_test::read_data("big_table-gfx90a.co");
  auto co = CodeObject::parse(big);
  ASSERT_TRUE(co.ok()) << co.message();
  EXPECT_EQ(LoadedCodeObject::load(*co, mem).message(),
            "host segment memory: Cannot allocate memory (size=" + base::hex(co->vaddr_span()) + " above limit 0x100000)");
}

TEST(Load, RejectsBadRelocations) {
  auto bytes = loader_test::read_data("global_var-gfx90a.co");
  auto co0 = CodeObject::parse(bytes);
  ASSERT_TRUE(co0.ok());
  uint64_t rela = locate(*co0, "kt_buffer").rela_off;
  HostSegmentMemory mem;
  auto b = bytes;
  loader_test::put_le<uint64_t>(b, rela + 8, 1);  // R_AMDGPU_ABS32_LO
  auto co = CodeObject::parse(b);
  ASSERT_TRUE(co.ok());
  EXPECT_EQ(LoadedCodeObject::load(*co, mem).message(),
            ".rela.dyn r_info at offset " + base::hex(rela + 8) +
                ": unsupported relocation type 1 (supported: R_AMDGPU_ABS64 3, R_AMDGPU_RELATIVE64 13)");
  b = bytes;
  loader_test::put_le<uint64_t>(b, rela, 0x7fffffff0ull);
  co = CodeObject::parse(b);
  ASSERT_TRUE(co.ok());
  EXPECT_EQ(LoadedCodeObject::load(*co, mem).message(),
            ".rela.dyn r_offset at offset " + base::hex(rela) + ": 0x7fffffff0 is outside the loaded segments");
  b = bytes;
  loader_test::put_le<uint64_t>(b, rela + 8, (uint64_t(999) << 32) | 3);
  co = CodeObject::parse(b);
  ASSERT_TRUE(co.ok());
  EXPECT_EQ(LoadedCodeObject::load(*co, mem).message(),
            ".rela.dyn r_info at offset " + base::hex(rela + 8) + ": symbol index 999 is not in the symbol table");
  EXPECT_EQ(mem.live_allocations(), 0u);  // failed loads free their memory
}

// .rela.dyn's sh_link names the symbol table ABS64 needs; when that section is not a symbol table
// (here .dynsym retyped to PROGBITS, with an sh_link past the section headers) loading must fail
// naming it, not index the section headers with its sh_link.
TEST(Load, RejectsRelocationSymbolTableOfWrongType) {
  auto bytes = loader_test::read_data("global_var-gfx90a.co");
  auto co0 = CodeObject::parse(bytes);
  ASSERT_TRUE(co0.ok());
  RelaInfo ri = locate(*co0, "kt_buffer");
  ASSERT_NE(ri.sym_index, 0u);
  loader_test::put_le<uint64_t>(bytes, ri.rela_off + 8, (uint64_t(ri.sym_index) << 32) | 3);  // R_AMDGPU_ABS64
  const loader::Section* rs = co0->elf().find_section(".rela.dyn");
  const loader::Section& dynsym = co0->elf().sections()[rs->link];
  ASSERT_EQ(dynsym.name, ".dynsym");
  loader_test::put_le<uint32_t>(bytes, dynsym.header_offset + 4, 1);        // sh_type = SHT_PROGBITS
  loader_test::put_le<uint32_t>(bytes, dynsym.header_offset + 40, 0xffff);  // sh_link
  auto co = CodeObject::parse(bytes);  // kernels and globals come from .symtab
  ASSERT_TRUE(co.ok()) << co.message();
  HostSegmentMemory mem;
  EXPECT_EQ(LoadedCodeObject::load(*co, mem).message(),
            "section .dynsym sh_type at offset " + base::hex(dynsym.header_offset + 4) +
                ": 1 is not SHT_SYMTAB or SHT_DYNSYM");
  EXPECT_EQ(mem.live_allocations(), 0u);
}

TEST(Load, ReportsAllocatorFailure) {
  struct FailingMemory : loader::SegmentMemory {
    base::Result<loader::Span> allocate(size_t, size_t, bool) override {
      return base::Error::from_errno("ALLOC_MEMORY_OF_GPU", ENOMEM);
    }
    void free(loader::Span) override {}
  } mem;
  auto bytes = loader_test::read_data("vector_add-gfx90a.co");
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok());
  auto lco = LoadedCodeObject::load(*co, mem);
  EXPECT_EQ(lco.err(), ENOMEM);
  EXPECT_EQ(lco.message(), "ALLOC_MEMORY_OF_GPU: Cannot allocate memory");
}

}  // namespace
