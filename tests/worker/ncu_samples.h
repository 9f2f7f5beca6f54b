// Real Nsight Compute output captured on the H200, shared by the parser's
// tests and the worker's profile-job tests (which replay it from a fake ncu).
#ifndef KERNELSEEK_TESTS_WORKER_NCU_SAMPLES_H_
#define KERNELSEEK_TESTS_WORKER_NCU_SAMPLES_H_

namespace kseek {

// Captured from Nsight Compute 2025.3.1 on an H200 on 2026-11-30, by the
// command NcuProfileArgv builds (worker/ncu_report.cc), run against a test
// program that launches one attention kernel twice; trimmed to the rows the
// parser reads plus a few it must pass over (an unread metric, a "no data"
// value, rule rows), every kept line verbatim. What the hand-made sample this
// replaced got wrong: metric rows stop after "Metric Value" with a trailing
// comma (16 fields) while the header has 20 columns, only rule rows have all
// 20 and name their section by identifier ("SpeedOfLight"), and shared
// memory per block is in "byte/block".
inline constexpr char kNcuCsvH200[] = R"csv(==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 1276 (/usr/bin/python3.12)
==PROF== Disconnected from process 1276
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Frequency","hz","3,199,420,145.79",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Memory Throughput","%","43.19",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","DRAM Throughput","%","33.45",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","160,960",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","L1/TEX Cache Throughput","%","46.78",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","L2 Cache Throughput","%","49.70",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","48.14",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","SpeedOfLight","","","","SOLBottleneck","OPT","This workload exhibits low compute throughput and memory bandwidth utilization relative to the peak performance of this device. Achieved compute throughput and/or memory bandwidth below 60.0% of peak typically indicate latency issues. Look at Scheduler Statistics and Warp State Statistics for potential reasons.","",""
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Local Memory Spilling Request Overhead","%","no data",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Memory Throughput","byte/s","1,609,549,105,367.79",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Mem Busy","%","43.19",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","Max Bandwidth","%","33.45",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","L1/TEX Hit Rate","%","59.62",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Memory Workload Analysis","L2 Hit Rate","%","62.62",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Driver Shared Memory Per Block","byte/block","1,024",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Dynamic Shared Memory Per Block","byte/block","214,096",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Static Shared Memory Per Block","byte/block","0",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Waves Per SM","","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Registers","block","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Shared Mem","block","1",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Block Limit Warps","block","5",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Theoretical Occupancy","%","18.75",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Occupancy","%","14.02",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Active Warps Per SM","warp","8.97",
"0","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","","","","TheoreticalOccupancy","OPT","The 3.00 theoretical warps per scheduler this kernel can issue according to its occupancy are below the hardware maximum of 16. This kernel's theoretical occupancy (18.8%) is limited by the number of required registers, and the required amount of shared memory.","local","81.25"
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Duration","ns","161,504",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","GPU Speed Of Light Throughput","Compute (SM) Throughput","%","47.94",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Launch Statistics","Registers Per Thread","register/thread","168",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","Achieved Occupancy","%","13.98",
"1","1276","python3.12","127.0.0.1","AttentionFwdKernel","1","7","(384, 1, 1)","(132, 1, 1)","0","9.0","Occupancy","","","","TheoreticalOccupancy","OPT","The 3.00 theoretical warps per scheduler this kernel can issue according to its occupancy are below the hardware maximum of 16. This kernel's theoretical occupancy (18.8%) is limited by the number of required registers, and the required amount of shared memory.","local","81.25"
)csv";

// Captured from Nsight Compute 2025.3.1 on an H200 on 2026-11-30 by
// `ncu --section SourceCounters --section WarpStateStats --page source
// --print-source sass --csv --launch-count 1 --clock-control none
// --kernel-name-base mangled -k regex:...` (the flags NcuSourceArgv uses, with
// stdout instead of --log-file), profiling the v9 attention kernel at d=128,
// s=512 (docs/gpu_runs/2026-11-30/lab/s2-run08-ncu-source-v9s.csv.gz). Trimmed
// to 24 of the kernel's 3464 SASS rows (the first eight, the twelve with the
// most samples, a few neighbours, one with a quoted comma in "Address Space"),
// every kept line verbatim. The expected numbers below are of these rows, and
// were computed independently with Python's csv module.
inline constexpr char kNcuSourceCsvH200[] = R"csv(==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 463 (/usr/bin/python3.12)
==PROF== Disconnected from process 463
"Kernel Name","void <unnamed>::AttentionFwdKernel<(int)128, (int)128, (bool)1>(CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, <unnamed>::FwdParams)",
"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","# Samples","Instructions Executed","Thread Instructions Executed","Predicated-On Thread Instructions Executed","Avg. Threads Executed","Avg. Predicated-On Threads Executed","Derivative Avg. Predicated-On Threads Executed","Avg. Predicated-On Threads Unexecuted","Divergent Branches","Address Space","Access Operation","Access Size","L1 Tag Requests Global","L1 Conflicts Shared N-Way","L1 Wavefronts Shared Excessive","L1 Wavefronts Shared","L1 Wavefronts Shared Ideal","L2 Theoretical Sectors Global Excessive","L2 Theoretical Sectors Global","L2 Theoretical Sectors Global Ideal","L2 Explicit Evict Policies","L2 Explicit Hit Policy Evict First","L2 Explicit Hit Policy Evict Last","L2 Explicit Hit Policy Evict Normal","L2 Explicit Hit Policy Evict Normal Demote","L2 Explicit Miss Policy Evict First","L2 Explicit Miss Policy Evict Normal","stall_barrier","stall_branch_resolving","stall_dispatch","stall_drain","stall_imc","stall_lg","stall_long_sb","stall_math","stall_membar","stall_mio","stall_misc","stall_no_inst","stall_not_selected","stall_selected","stall_short_sb","stall_sleep","stall_tex","stall_wait","stall_barrier (Not Issued)","stall_branch_resolving (Not Issued)","stall_dispatch (Not Issued)","stall_drain (Not Issued)","stall_imc (Not Issued)","stall_lg (Not Issued)","stall_long_sb (Not Issued)","stall_math (Not Issued)","stall_membar (Not Issued)","stall_mio (Not Issued)","stall_misc (Not Issued)","stall_no_inst (Not Issued)","stall_not_selected (Not Issued)","stall_selected (Not Issued)","stall_short_sb (Not Issued)","stall_sleeping (Not Issued)","stall_tex (Not Issued)","stall_wait (Not Issued)"
"0x7f13817a2800","      LDC R1, c[0x0][0x28]","24","22","24","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","24","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","22","0","0","0","0","0","0"
"0x7f13817a2810","      S2R R3, SR_TID.X","0","0","0","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2820","      ULDC.64 UR4, c[0x0][0x458]","9","8","9","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","8","0","0","0","0","0","0","0","1","0","0","0","0","0","0","0","0","0","8","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2830","      ULDC.64 UR8, c[0x0][0x440]","0","0","0","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2840","      UISETP.NE.AND UP0, UPT, UR4, URZ, UPT","1","0","1","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","1","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2850","      BSSY B0, 0x7f13817a2aa0","0","0","0","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2860","      UIADD3 UR6, UR5, 0x1, URZ","1","0","1","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","1","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a2870","      ULDC UR7, c[0x0][0x45c]","0","0","0","1584","50688","50688","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817a3770","@!P0  BRA 0x7f13817afab0","228","222","228","16384","524288","33792","32","2","30","30","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","223","0","0","0","0","0","1","3","0","0","0","1","0","0","0","0","0","0","221","0","0","0","0","0","0","0","0","0","0","1"
"0x7f13817a4070","      WARPGROUP.DEPBAR.LE gsb0, 0x0","254","176","254","16384","524288","524288","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","254","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","176","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817aa260","@!P0  WARPSYNC.ALL","335","178","335","49152","1572864","786432","32","16","0","16","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","223","0","57","0","0","0","0","0","0","0","0","0","41","0","0","0","0","14","165","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","13"
"0x7f13817aa280","      WARPSYNC.ALL","89","49","89","49152","1572864","1572864","32","32","16","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","58","0","6","0","0","0","0","0","0","0","0","0","6","1","0","0","0","18","40","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","9"
"0x7f13817aa720","      HGMMA.64x128x16.F32.BF16 R88, R152, gdesc[UR16].tnspB, R88","192","76","192","49152","1572864","1572864","32","32","0","0","0","Shared","Load","-","0","8","0","393216","393216","0","0","0","-","0","0","0","0","0","0","0","0","53","0","0","0","0","0","0","1","0","0","19","4","0","0","0","21","0","0","1","0","0","0","0","0","0","1","0","0","0","0","0","0","0","16"
"0x7f13817aa9f0","      WARPGROUP.DEPBAR.LE gsb0, 0x1","270","208","270","49152","1572864","1572864","32","32","16","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","256","0","7","0","0","0","0","0","0","0","0","0","3","1","0","0","0","3","204","0","2","0","0","0","0","0","0","0","0","0","0","0","0","0","0","2"
"0x7f13817ac6b0","      WARPGROUP.DEPBAR.LE gsb0, 0x0","253","133","253","16384","524288","524288","32","32","16","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","249","0","0","0","0","0","0","0","0","0","0","0","1","3","0","0","0","0","133","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817ac8f0","      FADD R17, R9, R0","195","188","195","16384","524288","524288","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","195","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","188","0","0","0"
"0x7f13817ad400","      LOP3.LUT P0, RZ, R3, 0x3, RZ, 0xc0, !PT","1","0","1","16384","524288","524288","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","1","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817ad410","@P0   BRA 0x7f13817ad6f0","341","324","341","16384","524288","393216","32","24","8","8","16384","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","330","0","0","0","0","0","1","2","0","0","0","8","0","0","0","0","0","0","317","0","0","0","0","0","0","0","0","0","0","7"
"0x7f13817ad750","      FADD R13, R13, R184","210","194","210","16384","524288","524288","32","32","0","0","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","210","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","194","0","0","0"
"0x7f13817adf90","@P0   BRA 0x7f13817ae270","232","206","232","16384","524288","393216","32","24","8","8","16384","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","218","0","0","0","0","0","0","1","0","0","0","13","0","0","0","0","0","0","194","0","0","0","0","0","0","0","0","0","0","12"
"0x7f13817af410","      UTMALDG.4D [UR8], [UR20]","0","0","0","2048","2048","2048","1","1","0","31","0","Global,Shared","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817af610","@!P0  BRA 0x7f13817afc30","435","305","435","7928","7928","2048","1","0","1","32","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","1","0","0","0","428","0","0","0","0","0","4","0","0","0","0","2","0","0","1","0","0","0","302","0","0","0","0","0","0","0","0","0","0","2"
"0x7f13817af850","@!P0  BRA 0x7f13817afc60","489","210","489","7928","7928","7928","1","1","0","31","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","11","0","0","0","469","0","0","0","0","0","9","0","0","0","0","0","0","0","0","0","0","0","210","0","0","0","0","0","0","0","0","0","0","0"
"0x7f13817af860","      SYNCS.ARRIVE.TRANS64 RZ, [UR33+0x30030], R3","5","0","5","8192","8192","8192","1","1","0","31","0","-","-","-","0","0","0","0","0","0","0","0","-","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","5","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0","0"
)csv";

}  // namespace kseek

#endif  // KERNELSEEK_TESTS_WORKER_NCU_SAMPLES_H_
