"""bench.cpu_split: perf's symbols fall in the right kinds of code, and the
shares and the matmul rate are computed from them as documented."""

import doctest

import pytest

from bench import cpu_split

# Lines as `perf report --stdio --no-children --sort sym` prints them.
REPORT = """\
# Samples: 13K of event 'cpu-clock:ppp'
#
    12.16%  [.] jit_avx512_core_gemm_bf16bf16f32_kern.30
     5.05%  [.] jit_brgemm_kernel_t.47
     1.58%  [.] jit_brgemm_matmul_copy_a_transposed_impl_t.70
     0.64%  [.] inner_product_utils::jit_pp_kernel_t.22
     0.30%  [.] jit_uni_reorder_kernel_f32.3
    20.00%  [.] 0x00007fb668338261
     0.40%  [.] ynn::max_fp32_4x16_avx512f
     1.83%  [.] Eigen::internal::TensorExecutor<...>::run
     0.61%  [.] Eigen::RunQueue<tsl::thread::EigenEnvironment::Task>::PopBack
     0.20%  [.] tensorflow::MklCPUAllocator::DeallocateRaw
     1.71%  [k] finish_task_switch.isra.0
     0.65%  [.] _int_malloc
"""


def test_each_kind_of_code_is_counted_once():
  shares = cpu_split.split_report(REPORT)
  assert abs(shares["onednn matmul"] - (12.16 + 5.05 + 1.58 + 0.64 + 0.30)) \
      < 1e-9
  assert abs(shares["XLA code"] - 20.40) < 1e-9
  assert abs(shares["TensorFlow runtime"] - (1.83 + 0.61 + 0.20)) < 1e-9
  assert shares["OS"] == 1.71 and shares["other"] == 0.65
  total = sum(float(line.split("%")[0]) for line in REPORT.splitlines()
              if "%" in line and not line.startswith("#"))
  assert abs(sum(shares.values()) - total) < 1e-9


def test_a_kernel_symbol_is_the_os_whatever_its_name():
  assert cpu_split.categorize("jit_brgemm_kernel_t.1", kernel=True) == "OS"


def test_matmul_rate_scales_with_share_and_cores():
  # 100 GFLOP in 0.5 CPU-s of which 50% matmul: 400 GFLOP per CPU-second,
  # on 2 busy cores 800 GFLOP/s; all of it matmul on one core: 200.
  assert cpu_split.matmul_rate(100.0, 0.5, 50.0, 2.0) == 800.0
  assert cpu_split.matmul_rate(100.0, 0.5, 100.0, 1.0) == 200.0


def test_docstring_examples_run():
  assert doctest.testmod(cpu_split).failed == 0


def test_without_perf_it_says_so_in_one_line(monkeypatch):
  monkeypatch.setattr(cpu_split.shutil, "which", lambda name: None)
  monkeypatch.setattr(cpu_split.sys, "argv", ["cpu_split", "--mode", "infer"])
  with pytest.raises(SystemExit) as exit_info:
    cpu_split.main()
  message = str(exit_info.value.code)
  assert "`perf` not found" in message and "\n" not in message
