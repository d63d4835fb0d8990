// SPDX-License-Identifier: MIT
// Tests of CodeObject: descriptors agree with metadata and readelf's symbols; corrupt files are
// rejected with messages naming the field and offset.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "loader/code_object.h"
#include "test_util.h"

using loader::CodeObject;

namespace {

std::string safe_name(const std::string& s) {
  std::string n = s;
  for (char& c : n)
    if (c == '+') c = 'P';
    else if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class BuiltObject : public ::testing::TestWithParam<std::string> {};

// Granulated fields must encode what the metadata says: AMDGPUUsage compute_pgm_rsrc1/2/3.
void expect_descriptor_matches(const loader::Kernel& k, const loader::TargetId& t) {
  const pm4::KernelDescriptor& kd = k.descriptor;
  const loader::KernelMeta& m = k.meta;
  SCOPED_TRACE(m.name + " on " + t.str());
  EXPECT_EQ(kd.group_segment_fixed_size, m.group_segment_fixed_size);
  EXPECT_EQ(kd.private_segment_fixed_size, m.private_segment_fixed_size);
  EXPECT_EQ(kd.kernarg_size, m.kernarg_segment_size);
  auto props = pm4::decode_code_properties(kd.kernel_code_properties);
  EXPECT_EQ(props.wavefront_size32, m.wavefront_size == 32);
  if (m.uses_dynamic_stack) { EXPECT_EQ(props.uses_dynamic_stack, *m.uses_dynamic_stack); }
  auto r1 = pm4::decode_rsrc1(kd.compute_pgm_rsrc1);
  auto r2 = pm4::decode_rsrc2(kd.compute_pgm_rsrc2);
  uint64_t needed = m.vgpr_count;
  if (loader::is_gfx90a_family(t) && m.agpr_count.value_or(0) > 0) needed = ((m.vgpr_count + 3) / 4) * 4 + *m.agpr_count;
  unsigned g = loader::vgpr_granule(t, props.wavefront_size32);
  EXPECT_EQ(r1.granulated_workitem_vgpr_count, (std::max<uint64_t>(needed, 1) + g - 1) / g - 1);
  EXPECT_EQ(loader::vgprs_from_descriptor(kd, t) >= needed, true);
  bool gfx10plus = t.processor.rfind("gfx1", 0) == 0;
  if (gfx10plus) {
    // Hardware ignores the field on gfx10+ (AMDGPUUsage), but clang still fills it.
    EXPECT_LE(r1.granulated_wavefront_sgpr_count, (m.sgpr_count + 7) / 8);
  } else {
    // clang 15 and 19 encode SGPRs in granules of 8 (checked over every built object), not
    // AMDGPUUsage's "2 * max(0, ceil(n / 16) - 1)" for gfx9: the two agree on the allocation.
    EXPECT_EQ(r1.granulated_wavefront_sgpr_count, (std::max<uint64_t>(m.sgpr_count, 1) + 7) / 8 - 1);
  }
  EXPECT_EQ(r2.user_sgpr_count, pm4::user_sgprs_from_properties(kd.kernel_code_properties) +
                                    pm4::kernarg_preload_length(kd.kernarg_preload));
  EXPECT_EQ(r2.granulated_lds_size, 0u);  // the CP takes LDS size from the dispatch packet
  EXPECT_EQ(r2.enable_private_segment, m.private_segment_fixed_size > 0 || props.uses_dynamic_stack);
  if (loader::is_gfx90a_family(t)) {
    auto r3 = pm4::decode_rsrc3_gfx90a(kd.compute_pgm_rsrc3);
    EXPECT_GE((r3.accum_offset + 1) * 4, m.vgpr_count);
  }
  EXPECT_EQ(k.entry_vaddr % 256, 0u);
}

TEST_P(BuiltObject, DescriptorsAgreeWithMetadata) {
  auto bytes = loader_test::read_data(GetParam());
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  ASSERT_FALSE(co->kernels().empty());
  for (const loader::Kernel& k : co->kernels()) expect_descriptor_matches(k, co->target());
}

// Kernel descriptor and global variable addresses must be readelf's symbol values and sizes.
TEST_P(BuiltObject, SymbolsAgreeWithReadelf) {
  std::string path = loader_test::data_dir() + "/" + GetParam();
  auto bytes = loader_test::read_file(path);
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  std::stringstream out(loader_test::run(loader_test::tool("LLVM_READELF_15") + " --dyn-syms '" + path + "'"));
  std::string line;
  int seen = 0;
  while (std::getline(out, line)) {
    std::stringstream ls(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (!(ls >> num >> value >> size >> type >> bind >> vis >> ndx >> name) || type != "OBJECT") continue;
    uint64_t v = std::stoull(value, nullptr, 16), sz = std::stoull(size);
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) {
      const loader::Kernel* k = co->find_kernel(name);
      ASSERT_NE(k, nullptr) << name;
      EXPECT_EQ(k->descriptor_vaddr, v) << name;
      ++seen;
    } else {
      const loader::GlobalVar* g = co->find_global(name);
      ASSERT_NE(g, nullptr) << name;
      EXPECT_EQ(g->vaddr, v) << name;
      EXPECT_EQ(g->size, sz) << name;
      ++seen;
    }
  }
  EXPECT_EQ(size_t(seen), co->kernels().size() + co->globals().size());
}

TEST_P(BuiltObject, TargetAgreesWithReadelfHeader) {
  std::string path = loader_test::data_dir() + "/" + GetParam();
  auto bytes = loader_test::read_file(path);
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  std::string hdr = loader_test::run(loader_test::tool("LLVM_READELF_19") + " -h '" + path + "'");
  EXPECT_NE(hdr.find(", " + co->target().processor), std::string::npos) << hdr;
  // File names carry the requested target: "<kernel>-gfx90a-xnack+.co" -> "gfx90a:xnack+".
  std::string want = GetParam().substr(GetParam().find('-') + 1);
  want = want.substr(0, want.size() - 3);
  for (const char* f : {"-xnack", "-sramecc"})
    if (size_t p = want.find(f); p != std::string::npos) want[p] = ':';
  auto parsed = loader::TargetId::parse(want);
  ASSERT_TRUE(parsed.ok()) << want;
  EXPECT_EQ(co->target().str(), parsed->str());
}

INSTANTIATE_TEST_SUITE_P(All, BuiltObject, ::testing::ValuesIn(loader_test::built_code_objects()),
                         [](const auto& info) { return safe_name(info.param); });

// ---- Corrupted files: each must fail with exactly this message. ----

class Corrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    good = loader_test::read_data("vector_add-gfx90a.co");
    auto co = CodeObject::parse(good);
    ASSERT_TRUE(co.ok()) << co.message();
    shoff = co->elf().header().shoff;
    shnum = co->elf().header().shnum;
    phnum = co->elf().header().phnum;
    phoff = co->elf().header().phoff;
    for (size_t i = 0; i < co->elf().sections().size(); ++i)
      if (co->elf().sections()[i].name == ".note") note_index = i;
  }
  std::string reject(const std::vector<uint8_t>& b) {
    auto co = CodeObject::parse(b);
    EXPECT_FALSE(co.ok());
    return co.message();
  }
  size_t find(const std::string& s) const {
    auto it = std::search(good.begin(), good.end(), s.begin(), s.end());
    EXPECT_NE(it, good.end()) << s;
    return it - good.begin();
  }
  std::vector<uint8_t> good;
  uint64_t shoff = 0, phoff = 0, shnum = 0, phnum = 0;
  size_t note_index = 0;
};

TEST_F(Corrupt, RejectsTruncatedElf) {
  std::vector<uint8_t> b(good.begin(), good.begin() + 40);
  EXPECT_EQ(reject(b), "ELF header at offset 0x0: file has 0x28 bytes, needs 0x40");
  std::vector<uint8_t> half(good.begin(), good.begin() + good.size() / 2);
  EXPECT_EQ(reject(half), "e_shoff at offset 0x28: " + base::hex(shoff) + " + " + std::to_string(shnum) + " section headers extend past the end of the file (" +
                              base::hex(half.size()) + " bytes)");
}

TEST_F(Corrupt, RejectsWrongIdentification) {
  auto b = good;
  b[0] = 'X';
  EXPECT_EQ(reject(b), "e_ident[EI_MAG] at offset 0x0: not an ELF file");
  b = good; b[4] = 1;
  EXPECT_EQ(reject(b), "e_ident[EI_CLASS] at offset 0x4: class 1 is not ELFCLASS64");
  b = good; b[5] = 2;
  EXPECT_EQ(reject(b), "e_ident[EI_DATA] at offset 0x5: encoding 2 is not little-endian");
  b = good; b[7] = 0;
  EXPECT_EQ(reject(b), "e_ident[EI_OSABI] at offset 0x7: 0 is not ELFOSABI_AMDGPU_HSA (64)");
  b = good; b[8] = 9;
  EXPECT_EQ(reject(b), "e_ident[EI_ABIVERSION] at offset 0x8: 9 is not a supported code object version (2 = v4, 3 = v5, 4 = v6)");
  b = good; loader_test::put_le<uint16_t>(b, 18, 62);
  EXPECT_EQ(reject(b), "e_machine at offset 0x12: 62 is not EM_AMDGPU (224)");
  b = good; b[48] = 0x27;
  EXPECT_EQ(reject(b), "e_flags at offset 0x30: unknown EF_AMDGPU_MACH 0x27");
}

TEST_F(Corrupt, RejectsBadHeaderTables) {
  auto b = good;
  loader_test::put_le<uint64_t>(b, 32, 0xffffffff00000000ull);
  EXPECT_EQ(reject(b), "e_phoff at offset 0x20: 0xffffffff00000000 + " + std::to_string(phnum) + " program headers extend past the end of the file (" +
                           base::hex(good.size()) + " bytes)");
  b = good; loader_test::put_le<uint64_t>(b, 32, phoff + 4);
  EXPECT_EQ(reject(b), "e_phoff at offset 0x20: " + base::hex(phoff + 4) + " is not 8-byte aligned");
  b = good; loader_test::put_le<uint16_t>(b, 54, 48);
  EXPECT_EQ(reject(b), "e_phentsize at offset 0x36: 48 is not 56");
  b = good; loader_test::put_le<uint16_t>(b, 60, 0xffff);
  EXPECT_EQ(reject(b), "e_shoff at offset 0x28: " + base::hex(shoff) + " + 65535 section headers extend past the end of the file (" +
                           base::hex(good.size()) + " bytes)");
  b = good; loader_test::put_le<uint16_t>(b, 62, uint16_t(shnum));
  EXPECT_EQ(reject(b), "e_shstrndx at offset 0x3e: " + std::to_string(shnum) + " is not below e_shnum " + std::to_string(shnum));
}

TEST_F(Corrupt, RejectsLyingSections) {
  uint64_t hdr = shoff + note_index * 64;
  auto b = good;
  loader_test::put_le<uint64_t>(b, hdr + 32, 0x7fffffffffffull);  // sh_size
  uint64_t note_off = 0;
  std::memcpy(&note_off, good.data() + hdr + 24, 8);
  EXPECT_EQ(reject(b), "section " + std::to_string(note_index) + " sh_offset at offset " + base::hex(hdr + 24) + ": [" +
                           base::hex(note_off) + ", +0x7fffffffffff) extends past the end of the file (" +
                           base::hex(good.size()) + " bytes)");
  // Point the note section at the ELF header: sections may not overlap it or each other.
  b = good;
  loader_test::put_le<uint64_t>(b, hdr + 24, 0x10);
  EXPECT_EQ(reject(b), "section .note sh_offset at offset " + base::hex(hdr + 24) + ": overlaps the ELF header");
  b = good;
  loader_test::put_le<uint64_t>(b, hdr + 48, 3);
  EXPECT_EQ(reject(b), "section " + std::to_string(note_index) + " sh_addralign at offset " + base::hex(hdr + 48) +
                           ": 0x3 is not a power of two");
}

TEST_F(Corrupt, RejectsLyingSegments) {
  auto b = good;
  uint64_t ph0 = phoff + 1 * 56;  // program header 1 is the first PT_LOAD after PT_PHDR
  uint32_t type;
  std::memcpy(&type, good.data() + ph0, 4);
  ASSERT_EQ(type, 1u);
  uint64_t memsz;
  std::memcpy(&memsz, good.data() + ph0 + 40, 8);
  loader_test::put_le<uint64_t>(b, ph0 + 32, memsz + 1);
  EXPECT_EQ(reject(b), "program header 1 p_filesz at offset " + base::hex(ph0 + 32) + ": " + base::hex(memsz + 1) +
                           " exceeds p_memsz " + base::hex(memsz));
  // Make the second PT_LOAD start inside the first.
  b = good;
  uint64_t ph1 = phoff + 2 * 56, v0;
  std::memcpy(&v0, good.data() + ph0 + 16, 8);
  loader_test::put_le<uint64_t>(b, ph1 + 16, v0);
  loader_test::put_le<uint64_t>(b, ph1 + 8, v0);  // keep p_vaddr == p_offset modulo align
  EXPECT_EQ(reject(b), "program header 2 p_vaddr at offset " + base::hex(ph1 + 16) + ": " + base::hex(v0) +
                           " overlaps the previous PT_LOAD segment");
}

TEST_F(Corrupt, RejectsLyingMetadata) {
  // Each edit keeps the msgpack well-formed but makes a value lie.
  auto b = good;
  size_t ws = find(".wavefront_size") + std::strlen(".wavefront_size");
  ASSERT_EQ(b[ws], 0x40);  // fixint 64
  b[ws] = 48;
  EXPECT_EQ(reject(b), "amdhsa.kernels[0] .wavefront_size at offset " + base::hex(ws) + ": 48 is not 32 or 64");
  b = good;
  size_t ks = find(".kernarg_segment_size") + std::strlen(".kernarg_segment_size");
  ASSERT_EQ(b[ks], 28);
  b[ks] = 20;
  size_t arg2 = 0;
  {
    auto co = CodeObject::parse(good);
    arg2 = co->metadata().raw.find("amdhsa.kernels")->array[0].find(".args")->array[2].offset;
  }
  // vector_add's third argument (float* c) is at [16, +8): the first to cross 20 bytes.
  EXPECT_EQ(reject(b), "amdhsa.kernels[0] .args[2] .offset at offset " + base::hex(arg2) +
                           ": argument [16, +8) is outside .kernarg_segment_size 20");
  b = good;
  size_t tgt = find("amdgcn-amd-amdhsa--gfx90a");
  b[tgt + 24] = '8';
  uint64_t desc_off = 0;
  {
    auto co = CodeObject::parse(good);
    desc_off = co->elf().notes()->at(0).desc_offset;
  }
  EXPECT_EQ(reject(b), "amdhsa.target at offset " + base::hex(desc_off) +
                           ": 'amdgcn-amd-amdhsa--gfx908' disagrees with e_flags ('amdgcn-amd-amdhsa--gfx90a')");
  b = good;
  size_t sym = find("vector_add.kd");
  b[sym + 9] = 'X';
  EXPECT_EQ(reject(b), "amdhsa.kernels[0] .symbol: no defined symbol 'vector_adX.kd'");
  b = good;
  size_t vk = find("global_buffer");
  b[vk + 12] = 'X';
  EXPECT_EQ(reject(b), "amdhsa.kernels[0] .args[0] .value_kind at offset " + base::hex(vk - 1) +
                           ": unknown value kind 'global_buffeX'");
}

// A key given twice lets two readers of one note disagree (a lookup takes the first, kfdobj's
// dump walked both and indexed the kernels by the second's length): rejected by name and place.
TEST_F(Corrupt, RejectsDuplicateMetadataKeys) {
  auto b = good;
  size_t sgpr = find(".sgpr_count"), vgpr = find(".vgpr_count");
  ASSERT_LT(sgpr, vgpr);  // LLVM writes map keys in order
  std::memcpy(b.data() + sgpr, ".vgpr_count", 11);
  EXPECT_EQ(reject(b), "amdhsa.kernels[0] .vgpr_count at offset " + base::hex(vgpr - 1) + ": key appears twice");
  b = good;
  size_t kernels = find("amdhsa.kernels"), version = find("amdhsa.version");
  ASSERT_LT(kernels, version);
  std::memcpy(b.data() + version, "amdhsa.kernels", 14);
  EXPECT_EQ(reject(b), "amdhsa.kernels at offset " + base::hex(version - 1) + ": key appears twice");
}

TEST_F(Corrupt, RejectsLyingDescriptor) {
  auto co = CodeObject::parse(good);
  ASSERT_TRUE(co.ok());
  const loader::Kernel& k = co->kernels()[0];
  uint64_t kd_off = *co->elf().file_offset_of(k.descriptor_vaddr, 64, "kd");
  auto b = good;
  loader_test::put_le<int64_t>(b, kd_off + 16, k.descriptor.kernel_code_entry_byte_offset + 4);
  EXPECT_EQ(reject(b), "kernel descriptor vector_add.kd kernel_code_entry_byte_offset at offset " + base::hex(kd_off + 16) +
                           ": entry " + base::hex(k.entry_vaddr + 4) + " is outside the image or not 256-byte aligned");
  b = good;
  loader_test::put_le<int64_t>(b, kd_off + 16, int64_t(1) << 40);
  EXPECT_NE(reject(b).find("is outside the image"), std::string::npos);
}

TEST(CodeObjectApi, ReadsVersion6AndGenericTargets) {
  auto b1 = loader_test::read_data("vector_add_v6-gfx942.co");
  auto b2 = loader_test::read_data("vector_add_v6-gfx9-generic.co");
  auto c1 = CodeObject::parse(b1), c2 = CodeObject::parse(b2);
  ASSERT_TRUE(c1.ok()) << c1.message();
  ASSERT_TRUE(c2.ok()) << c2.message();
  EXPECT_EQ(c1->version(), 6u);
  EXPECT_EQ(c2->version(), 6u);
  EXPECT_EQ(c1->target().str(), "gfx942");
  EXPECT_EQ(c2->target().str(), "gfx9-generic");
  EXPECT_EQ(c2->kernels().size(), 2u);
}

TEST(CodeObjectApi, KeepsArgumentNames) {
  auto bytes = loader_test::read_data("many_args-gfx90a.co");
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  const auto& args = co->find_kernel("many_args")->meta.args;
  ASSERT_GE(args.size(), 12u);
  EXPECT_EQ(args[0].name.value_or(""), "c");
  EXPECT_EQ(args[6].name.value_or(""), "p");
  EXPECT_EQ(args[6].size, 24u);  // struct KtPacked by value
  EXPECT_EQ(args[11].name.value_or(""), "last");
}

TEST(CodeObjectApi, FindsKernelsAndGlobals) {
  auto bytes = loader_test::read_data("global_var-gfx90a.co");
  auto co = CodeObject::parse(bytes);
  ASSERT_TRUE(co.ok()) << co.message();
  EXPECT_EQ(co->target().str(), "gfx90a");
  EXPECT_EQ(co->version(), 4u);
  ASSERT_NE(co->find_kernel("bump"), nullptr);
  EXPECT_EQ(co->find_kernel("bump"), co->find_kernel("bump.kd"));
  EXPECT_EQ(co->find_kernel("nope"), nullptr);
  ASSERT_NE(co->find_global("kt_table"), nullptr);
  EXPECT_EQ(co->find_global("kt_table")->size, 32u);
  EXPECT_EQ(co->find_global("kt_buffer")->size, 256u);
  EXPECT_EQ(co->find_global("kt_counter")->size, 4u);
}

}  // namespace
