#include "worker/sass_summary.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

namespace kseek {
namespace {

// cuobjdump 13.2 --dump-sass of an sm_90a kernel (cp.async, wgmma m64n8k16, shfl, __expf):
constexpr char kSassSm90aWgmma[] = R"KS(
	code for sm_90a
	.target	sm_90a

		Function : _Z2wgPfPKfyy
	.headerflags	@"EF_CUDA_ACCELERATORS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                                    /* 0x00000a00ff017b82 */
                                                                                             /* 0x000fe20000000800 */
        /*0010*/                   S2R R7, SR_TID.X ;                                        /* 0x0000000000077919 */
                                                                                             /* 0x000e6e0000002100 */
        /*0020*/                   S2UR UR5, SR_CgaCtaId ;                                   /* 0x00000000000579c3 */
                                                                                             /* 0x000ea20000008800 */
        /*0030*/                   UMOV UR4, 0x400 ;                                         /* 0x0000040000047882 */
                                                                                             /* 0x000fe20000000000 */
        /*0040*/                   ULDC.64 UR6, c[0x0][0x208] ;                              /* 0x0000820000067ab9 */
                                                                                             /* 0x000fe20000000a00 */
        /*0050*/                   ULDC.64 UR8, c[0x0][0x220] ;                              /* 0x0000880000087ab9 */
                                                                                             /* 0x000fe20000000a00 */
        /*0060*/                   ULDC.64 UR10, c[0x0][0x228] ;                             /* 0x00008a00000a7ab9 */
                                                                                             /* 0x000fe20000000a00 */
        /*0070*/                   PLOP3.LUT P0, PT, PT, PT, PT, 0x80, 0x0 ;                 /* 0x000000000000781c */
                                                                                             /* 0x000fc60003f0f070 */
        /*0080*/                   LDC.64 R2, c[0x0][0x218] ;                                /* 0x00008600ff027b82 */
                                                                                             /* 0x000ee20000000a00 */
        /*0090*/                   ULEA UR4, UR5, UR4, 0x18 ;                                /* 0x0000000405047291 */
                                                                                             /* 0x004fcc000f8ec03f */
        /*00a0*/                   LEA R5, R7.reuse, UR4, 0x2 ;                              /* 0x0000000407057c11 */
                                                                                             /* 0x042fe2000f8e10ff */
        /*00b0*/                   IMAD.WIDE.U32 R2, R7.reuse, 0x4, R2 ;                     /* 0x0000000407027825 */
                                                                                             /* 0x048fe200078e0002 */
        /*00c0*/                   LEA R0, R7, 0x4, 0x2 ;                                    /* 0x0000000407007811 */
                                                                                             /* 0x000fc800078e10ff */
        /*00d0*/              @!PT LDS RZ, [RZ] ;                                            /* 0x00000000fffff984 */
                                                                                             /* 0x000fe20000000800 */
        /*00e0*/              @!PT LDS RZ, [RZ] ;                                            /* 0x00000000fffff984 */
                                                                                             /* 0x000fe20000000800 */
        /*00f0*/              @!PT LDS RZ, [RZ] ;                                            /* 0x00000000fffff984 */
                                                                                             /* 0x000fe20000000800 */
        /*0100*/                   LDGSTS.E [R5], desc[UR6][R2.64] ;                         /* 0x0000000002057fae */
                                                                                             /* 0x0003e2000b921846 */
        /*0110*/                   LOP3.LUT R0, R0, 0x1fc, RZ, 0xc0, !PT ;                   /* 0x000001fc00007812 */
                                                                                             /* 0x000fc600078ec0ff */
        /*0120*/                   LDGDEPBAR ;                                               /* 0x00000000000079af */
                                                                                             /* 0x000e220000000000 */
        /*0130*/                   DEPBAR.LE SB0, 0x0 ;                                      /* 0x000080000000791a */
                                                                                             /* 0x000fc80000000000 */
        /*0140*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                             /* 0x0000000000007b1d */
                                                                                             /* 0x000fec0000010000 */
        /*0150*/                   WARPGROUP.ARRIVE ;                                        /* 0x00000000000079c5 */
                                                                                             /* 0x000fcc0000000000 */
        /*0160*/                   HGMMA.64x8x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT, gsb0 ;  /* 0x00000000081879f0 */
                                                                                             /* 0x000fe6000c0018ff */
        /*0170*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;                           /* 0x00008000000079c5 */
                                                                                             /* 0x000fe40000010000 */
        /*0180*/                   LDS R3, [R0+UR4] ;                                        /* 0x0000000400037984 */
                                                                                             /* 0x002e620008000800 */
        /*0190*/                   FADD R25, R24, R25 ;                                      /* 0x0000001918197221 */
                                                                                             /* 0x000fe20000000000 */
        /*01a0*/                   ULDC.64 UR4, c[0x0][0x210] ;                              /* 0x0000840000047ab9 */
                                                                                             /* 0x000fc60000000a00 */
        /*01b0*/                   FADD R26, R26, R25 ;                                      /* 0x000000191a1a7221 */
                                                                                             /* 0x000fc80000000000 */
        /*01c0*/                   FADD R26, R27, R26 ;                                      /* 0x0000001a1b1a7221 */
                                                                                             /* 0x000fc80000000000 */
        /*01d0*/                   FADD R26, R26, R3 ;                                       /* 0x000000031a1a7221 */
                                                                                             /* 0x002fca0000000000 */
        /*01e0*/                   SHFL.BFLY PT, R3, R26, 0x1, 0x1f ;                        /* 0x0c201f001a037f89 */
                                                                                             /* 0x000e6400000e0000 */
        /*01f0*/                   FSETP.GT.AND P1, PT, R26.reuse, -R3, PT ;                 /* 0x800000031a00720b */
                                                                                             /* 0x042fe20003f24000 */
        /*0200*/                   FADD R5, R26, R3 ;                                        /* 0x000000031a057221 */
                                                                                             /* 0x000fd80000000000 */
        /*0210*/               @P1 FMUL R4, R5, 1.4426950216293334961 ;                      /* 0x3fb8aa3b05041820 */
                                                                                             /* 0x000fca0000400000 */
        /*0220*/               @P1 FSETP.GEU.AND P2, PT, R4, -126, PT ;                      /* 0xc2fc00000400180b */
                                                                                             /* 0x000fc80003f4e000 */
        /*0230*/               @P1 PLOP3.LUT P0, PT, P2, PT, PT, 0x80, 0x0 ;                 /* 0x000000000000181c */
                                                                                             /* 0x000fe4000170f070 */
        /*0240*/                   LEA R2, P2, R7, UR4, 0x2 ;                                /* 0x0000000407027c11 */
                                                                                             /* 0x000fc8000f8410ff */
        /*0250*/                   LEA.HI.X R3, R7, UR5, RZ, 0x2, P2 ;                       /* 0x0000000507037c11 */
                                                                                             /* 0x000fce00090f14ff */
        /*0260*/              @!P0 FMUL R4, R4, 0.5 ;                                        /* 0x3f00000004048820 */
                                                                                             /* 0x000fc80000400000 */
        /*0270*/               @P1 MUFU.EX2 R0, R4 ;                                         /* 0x0000000400001308 */
                                                                                             /* 0x000e640000000800 */
        /*0280*/              @!P0 FMUL R0, R0, R0 ;                                         /* 0x0000000000008220 */
                                                                                             /* 0x002fca0000400000 */
        /*0290*/               @P1 MOV R5, R0 ;                                              /* 0x0000000000051202 */
                                                                                             /* 0x000fca0000000f00 */
        /*02a0*/                   STG.E desc[UR6][R2.64], R5 ;                              /* 0x0000000502007986 */
                                                                                             /* 0x000fe2000c101906 */
        /*02b0*/                   EXIT ;                                                    /* 0x000000000000794d */
                                                                                             /* 0x000fea0003800000 */
        /*02c0*/                   BRA 0x2c0;                                                /* 0xfffffffc00fc7947 */
                                                                                             /* 0x000fc0000383ffff */
        /*02d0*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*02e0*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*02f0*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0300*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0310*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0320*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0330*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0340*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0350*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0360*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
        /*0370*/                   NOP;                                                      /* 0x0000000000007918 */
                                                                                             /* 0x000fc00000000000 */
		..........


)KS";
// cuobjdump 13.2 --dump-sass of an sm_100a saxpy kernel (header and second function only):
constexpr char kSassSm100aSaxpy[] = R"KS(
	code for sm_100a
	.target	sm_100a


		Function : _Z5saxpyfPKfPfi
	.headerflags	@"EF_CUDA_ACCELERATORS EF_CUDA_SM100 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)"
        /*0000*/                   LDC R1, c[0x0][0x37c] ;                    /* 0x0000df00ff017b82 */
                                                                              /* 0x000fe20000000800 */
        /*0010*/                   S2R R0, SR_TID.X ;                         /* 0x0000000000007919 */
                                                                              /* 0x000e2e0000002100 */
        /*0020*/                   S2UR UR4, SR_CTAID.X ;                     /* 0x00000000000479c3 */
                                                                              /* 0x000e220000002500 */
        /*0030*/                   LDCU UR5, c[0x0][0x398] ;                  /* 0x00007300ff0577ac */
                                                                              /* 0x000e6e0008000800 */
        /*0040*/                   LDC R7, c[0x0][0x360] ;                    /* 0x0000d800ff077b82 */
                                                                              /* 0x000e240000000800 */
        /*0050*/                   IMAD R7, R7, UR4, R0 ;                     /* 0x0000000407077c24 */
                                                                              /* 0x001fca000f8e0200 */
        /*0060*/                   ISETP.GE.AND P0, PT, R7, UR5, PT ;         /* 0x0000000507007c0c */
                                                                              /* 0x002fda000bf06270 */
        /*0070*/               @P0 EXIT ;                                     /* 0x000000000000094d */
                                                                              /* 0x000fea0003800000 */
        /*0080*/                   LDC.64 R2, c[0x0][0x388] ;                 /* 0x0000e200ff027b82 */
                                                                              /* 0x000e220000000a00 */
        /*0090*/                   LDCU.64 UR6, c[0x0][0x358] ;               /* 0x00006b00ff0677ac */
                                                                              /* 0x000e6e0008000a00 */
        /*00a0*/                   S2UR UR5, SR_CgaCtaId ;                    /* 0x00000000000579c3 */
                                                                              /* 0x000eb00000008800 */
        /*00b0*/                   LDC.64 R4, c[0x0][0x390] ;                 /* 0x0000e400ff047b82 */
                                                                              /* 0x000ee20000000a00 */
        /*00c0*/                   IMAD.WIDE R2, R7, 0x4, R2 ;                /* 0x0000000407027825 */
                                                                              /* 0x001fcc00078e0202 */
        /*00d0*/                   LDG.E R2, desc[UR6][R2.64] ;               /* 0x0000000602027981 */
                                                                              /* 0x002f22000c1e1900 */
        /*00e0*/                   UMOV UR4, 0x400 ;                          /* 0x0000040000047882 */
                                                                              /* 0x000fe40000000000 */
        /*00f0*/                   ULEA UR4, UR5, UR4, 0x18 ;                 /* 0x0000000405047291 */
                                                                              /* 0x004fcc000f8ec0ff */
        /*0100*/                   LEA R9, R0, UR4, 0x2 ;                     /* 0x0000000400097c11 */
                                                                              /* 0x000fe2000f8e10ff */
        /*0110*/                   IMAD.WIDE R4, R7, 0x4, R4 ;                /* 0x0000000407047825 */
                                                                              /* 0x008fc800078e0204 */
        /*0120*/                   LDCU UR4, c[0x0][0x380] ;                  /* 0x00007000ff0477ac */
                                                                              /* 0x000e220008000800 */
        /*0130*/                   STS [R9], R2 ;                             /* 0x0000000209007388 */
                                                                              /* 0x010fe20000000800 */
        /*0140*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;              /* 0x0000000000007b1d */
                                                                              /* 0x000fec0000010000 */
        /*0150*/                   LDG.E R0, desc[UR6][R4.64] ;               /* 0x0000000604007981 */
                                                                              /* 0x000ea4000c1e1900 */
        /*0160*/                   FMUL R6, R0, 1.4426950216293334961 ;       /* 0x3fb8aa3b00067820 */
                                                                              /* 0x004fc40000400000 */
        /*0170*/                   LDS R0, [R9] ;                             /* 0x0000000009007984 */
                                                                              /* 0x000e260000000800 */
        /*0180*/                   FSETP.GEU.AND P0, PT, R6, -126, PT ;       /* 0xc2fc00000600780b */
                                                                              /* 0x000fda0003f0e000 */
        /*0190*/              @!P0 FMUL R6, R6, 0.5 ;                         /* 0x3f00000006068820 */
                                                                              /* 0x000fc80000400000 */
        /*01a0*/                   MUFU.EX2 R3, R6 ;                          /* 0x0000000600037308 */
                                                                              /* 0x000e640000000800 */
        /*01b0*/              @!P0 FMUL R3, R3, R3 ;                          /* 0x0000000303038220 */
                                                                              /* 0x002fc80000400000 */
        /*01c0*/                   FFMA R3, R0, UR4, R3 ;                     /* 0x0000000400037c23 */
                                                                              /* 0x001fca0008000003 */
        /*01d0*/                   STG.E desc[UR6][R4.64], R3 ;               /* 0x0000000304007986 */
                                                                              /* 0x000fe2000c101906 */
        /*01e0*/                   EXIT ;                                     /* 0x000000000000794d */
                                                                              /* 0x000fea0003800000 */
        /*01f0*/                   BRA 0x1f0;                                 /* 0xfffffffc00fc7947 */
                                                                              /* 0x000fc0000383ffff */
        /*0200*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0210*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0220*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0230*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0240*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0250*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0260*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
        /*0270*/                   NOP;                                       /* 0x0000000000007918 */
                                                                              /* 0x000fc00000000000 */
		..........


)KS";

std::map<std::string, int> ClassMap(const kernelseek::v1::SassSummary& s) {
  std::map<std::string, int> out;
  for (const auto& c : s.classes()) out[c.name()] = c.count();
  return out;
}

TEST_CASE("InstructionClass strips predicates and modifiers") {
  CHECK(InstructionClass("@!P0 FMUL R0, R1, R2 ;") == "FMUL");
  CHECK(InstructionClass("HGMMA.64x128x16.F32.BF16 R24, gdesc[UR8], RZ, !UPT, gsb0 ;") == "HGMMA");
  CHECK(InstructionClass("   @P1 MUFU.EX2 R0, R4 ;") == "MUFU");
  CHECK(InstructionClass("@!PT LDS RZ, [RZ] ;") == "LDS");
  CHECK(InstructionClass("NOP;") == "NOP");
  CHECK(InstructionClass("BRA 0x2c0;") == "BRA");
  CHECK(InstructionClass("@!UP0 SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [UR4], RZ ;") == "SYNCS");
  CHECK(InstructionClass("/* 0x000fe200078e00ff */").empty());
  CHECK(InstructionClass("").empty());
}

TEST_CASE("SummarizeSass counts an sm_90a wgmma kernel by class") {
  std::vector<kernelseek::v1::SassSummary> s = SummarizeSass(kSassSm90aWgmma);
  REQUIRE(s.size() == 1);
  CHECK(s[0].function() == "_Z2wgPfPKfyy");
  // 0x0000..0x02c0 step 0x10; the NOP padding after the final BRA is not counted.
  CHECK(s[0].total() == 45);
  std::map<std::string, int> c = ClassMap(s[0]);
  CHECK(c["HGMMA"] == 1);
  CHECK(c["LDGSTS"] == 1);
  CHECK(c["BAR"] == 1);
  CHECK(c["SHFL"] == 1);
  CHECK(c["MUFU"] == 1);
  CHECK(c["STG"] == 1);
  CHECK(c["LDS"] == 4);
  CHECK(c["FADD"] == 5);
  CHECK(c.count("NOP") == 0);
  CHECK(c.count("HGMMA.64x8x16.F32.BF16") == 0);
}

TEST_CASE("SummarizeSass lists tracked classes with 0 and sorts classes by name") {
  std::vector<kernelseek::v1::SassSummary> s = SummarizeSass(kSassSm100aSaxpy);
  REQUIRE(s.size() == 1);
  CHECK(s[0].function() == "_Z5saxpyfPKfPfi");
  CHECK(s[0].total() == 32);
  std::map<std::string, int> c = ClassMap(s[0]);
  for (const std::string& tracked : TrackedInstructionClasses()) CHECK(c.count(tracked) == 1);
  CHECK(c["HGMMA"] == 0);
  CHECK(c["LDL"] == 0);
  CHECK(c["LDG"] == 2);
  CHECK(c["STS"] == 1);
  CHECK(c["LDS"] == 1);
  CHECK(c["EXIT"] == 2);
  CHECK(c["FMUL"] == 3);
  int sum = 0;
  for (int i = 0; i < s[0].classes_size(); ++i) {
    sum += s[0].classes(i).count();
    if (i > 0) CHECK(s[0].classes(i - 1).name() < s[0].classes(i).name());
  }
  CHECK(sum == s[0].total());
}

TEST_CASE("SummarizeSass splits a dump into its functions") {
  std::string both = std::string(kSassSm90aWgmma) + kSassSm100aSaxpy;
  std::vector<kernelseek::v1::SassSummary> s = SummarizeSass(both);
  REQUIRE(s.size() == 2);
  CHECK(s[0].function() == "_Z2wgPfPKfyy");
  CHECK(s[1].function() == "_Z5saxpyfPKfPfi");
  CHECK(s[1].total() == 32);
  CHECK(SummarizeSass("").empty());
}

}  // namespace
}  // namespace kseek
