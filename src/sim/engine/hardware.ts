/**
 * Accelerator profiles: dense bf16 (and fp8) peak (no 2:4 sparsity), HBM bandwidth and capacity,
 * the per-GPU interconnect used by tensor-parallel all-reduce, and the fractions of those peaks
 * real serving kernels reach on each part. Sources: vendor data sheets (NVIDIA A100/H100/H200/
 * L40S/L4, AMD Instinct MI300X); the efficiencies and their reasoning: docs/simulator.md.
 */
export interface HardwareProfile {
  id: string;
  name: string;
  /** Dense bf16 tensor FLOP/s per GPU. */
  peak_flops: number;
  /** Dense fp8 tensor FLOP/s per GPU (absent: no fp8 tensor cores, fp8 weights run at bf16 rate). */
  fp8_flops?: number;
  /** HBM (or GDDR) bytes/s per GPU. */
  mem_bandwidth: number;
  /** Device memory bytes per GPU. */
  mem_bytes: number;
  /** Interconnect bytes/s per GPU for all-reduce (NVLink / Infinity Fabric / PCIe). */
  link_bandwidth: number;
  /** Fraction of peak FLOP/s that serving matmuls and attention reach on this part. */
  compute_efficiency: number;
  /** Fraction of peak memory bandwidth that decode weight reads reach on this part. */
  memory_efficiency: number;
}

const GiB = 2 ** 30;
/**
 * Device memory as the CUDA runtime reports it (torch.cuda.mem_get_info total; the "total capacity
 * of N GiB" of PyTorch's out-of-memory message), which is what engines size their caches from:
 * an "80GB" H100 or A100 has ≈ 79.2 GiB, an H200 ≈ 139.8 GiB, a 40GB A100 ≈ 39.4 GiB.
 */
const USABLE_80GB = 79.2 * GiB;

export const HARDWARE: readonly HardwareProfile[] = [
  // A100 SXM 80GB: 312 TFLOP/s bf16 dense (no fp8), 2,039 GB/s HBM2e, NVLink 600 GB/s.
  { id: 'a100', name: 'NVIDIA A100 SXM 80GB', peak_flops: 312e12, mem_bandwidth: 2.039e12, mem_bytes: USABLE_80GB, link_bandwidth: 600e9, compute_efficiency: 0.6, memory_efficiency: 0.8 },
  // A100 SXM 40GB: same compute, 1,555 GB/s HBM2.
  { id: 'a100-40gb', name: 'NVIDIA A100 SXM 40GB', peak_flops: 312e12, mem_bandwidth: 1.555e12, mem_bytes: 39.4 * GiB, link_bandwidth: 600e9, compute_efficiency: 0.6, memory_efficiency: 0.8 },
  // H100 SXM: 989 TFLOP/s bf16 dense (1,979 with sparsity), 1,979 fp8 dense, 3.35 TB/s HBM3, NVLink 900 GB/s.
  { id: 'h100', name: 'NVIDIA H100 SXM 80GB', peak_flops: 989e12, fp8_flops: 1979e12, mem_bandwidth: 3.35e12, mem_bytes: USABLE_80GB, link_bandwidth: 900e9, compute_efficiency: 0.5, memory_efficiency: 0.8 },
  // H200 SXM: H100 compute, 4.8 TB/s HBM3e, 141 GB.
  { id: 'h200', name: 'NVIDIA H200 SXM 141GB', peak_flops: 989e12, fp8_flops: 1979e12, mem_bandwidth: 4.8e12, mem_bytes: 139.8 * GiB, link_bandwidth: 900e9, compute_efficiency: 0.5, memory_efficiency: 0.8 },
  // L40S: 362 TFLOP/s bf16 dense, 733 fp8 dense, 864 GB/s GDDR6, 48 GB, PCIe Gen4 x16 (64 GB/s).
  { id: 'l40s', name: 'NVIDIA L40S 48GB', peak_flops: 362e12, fp8_flops: 733e12, mem_bandwidth: 864e9, mem_bytes: 48 * GiB, link_bandwidth: 64e9, compute_efficiency: 0.5, memory_efficiency: 0.8 },
  // L4: 121 TFLOP/s bf16 dense, 242 fp8 dense, 300 GB/s GDDR6, 24 GB, PCIe Gen4 x16.
  { id: 'l4', name: 'NVIDIA L4 24GB', peak_flops: 121e12, fp8_flops: 242e12, mem_bandwidth: 300e9, mem_bytes: 24e9, link_bandwidth: 64e9, compute_efficiency: 0.5, memory_efficiency: 0.72 },
  // MI300X: 1,307 TFLOP/s bf16 dense, 2,615 fp8 dense, 5.3 TB/s HBM3, 192 GB, Infinity Fabric 896 GB/s.
  { id: 'mi300x', name: 'AMD Instinct MI300X 192GB', peak_flops: 1307e12, fp8_flops: 2615e12, mem_bandwidth: 5.3e12, mem_bytes: 192 * GiB, link_bandwidth: 896e9, compute_efficiency: 0.4, memory_efficiency: 0.6 },
];
