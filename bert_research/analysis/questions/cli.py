"""The command line: `python -m bert_research.analysis.questions NAME ...`, one
sub-command per question (docs/questions.md).
"""

import argparse

from bert_research.analysis.questions import decode
from bert_research.analysis.questions import flops
from bert_research.analysis.questions import layers
from bert_research.analysis.questions import limits
from bert_research.analysis.questions import long_text
from bert_research.analysis.questions import masking
from bert_research.analysis.questions import nonlinearity
from bert_research.analysis.questions import pooling
from bert_research.analysis.questions import scale
from bert_research.analysis.questions import self_attention
from bert_research.analysis.questions import tied
from tokenization.errors import InputError


def model_parser(sub, name):
  """A sub-command that runs a checkpoint: --bert_config_file,
  --init_checkpoint and --vocab_file, all required."""
  p = sub.add_parser(name)
  for flag in ("bert_config_file", "init_checkpoint", "vocab_file"):
    p.add_argument("--" + flag, required=True)
  return p


def build_parser():
  parser = argparse.ArgumentParser(
      prog="python -m bert_research.analysis.questions")
  sub = parser.add_subparsers(dest="command", required=True)
  p = sub.add_parser("tied")
  p.add_argument("--init_checkpoint", required=True)
  p.add_argument("--bert_config_file")
  p = model_parser(sub, "scale")
  p.add_argument("--sentences", type=int, default=50)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = sub.add_parser("decode")
  p.add_argument("--init_checkpoint", required=True)
  p.add_argument("--samples", type=int, default=2000)
  p.add_argument("--max_positions", type=int, default=0)
  p.add_argument("--seed", type=int, default=0)
  p = sub.add_parser("limits")
  p.add_argument("--bert_config_file", required=True)
  p.add_argument("--init_checkpoint")
  p = sub.add_parser("flops")
  p.add_argument("--hidden", type=int, default=384)
  p.add_argument("--intermediate", type=int, default=1536)
  p = model_parser(sub, "pooling")
  p.add_argument("--per_category", type=int, default=20)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "long_text")
  p.add_argument("--max_articles", type=int, default=0,
                 help="0: all 2,225 (spread evenly over the sorted files)")
  p.add_argument("--max_seq_length", type=int, default=128)
  p.add_argument("--doc_stride", type=int, default=64)
  p = model_parser(sub, "self_attention")
  p.add_argument("--sentences", type=int, default=50)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "nonlinearity")
  p.add_argument("--max_articles", type=int, default=300)
  p.add_argument("--max_seq_length", type=int, default=128)
  p = model_parser(sub, "layers")
  p.add_argument("--sentences", type=int, default=400)
  p.add_argument("--max_seq_length", type=int, default=64)
  p.add_argument("--max_pairs", type=int, default=20,
                 help="random token pairs per sentence for the order probe")
  p.add_argument("--seed", type=int, default=0)
  p.add_argument("--output_plot", default=None,
                 help="also draw the table as a PNG here")
  p = sub.add_parser("masking")
  p.add_argument("--rates", type=lambda t: [float(v) for v in t.split(",")],
                 default=[0.10, 0.15, 0.25, 0.40])
  p.add_argument("--seeds", type=int, default=4)
  p.add_argument("--steps", type=int, default=800)
  p.add_argument("--batch", type=int, default=64)
  p.add_argument("--seq_length", type=int, default=32)
  p.add_argument("--vocab_size", type=int, default=33,
                 help="tokens 1..N-1, N = [MASK]")
  p.add_argument("--stay", type=float, default=0.8,
                 help="probability that a token follows its topic's shift")
  p.add_argument("--hidden_size", type=int, default=64)
  p.add_argument("--layers", type=int, default=1)
  p.add_argument("--heads", type=int, default=4)
  p.add_argument("--learning_rate", type=float, default=3e-3)
  p.add_argument("--probe_examples", type=int, default=1000)
  return parser


COMMANDS = {
    "tied": tied.run_tied, "scale": scale.run_scale,
    "decode": decode.run_decode, "limits": limits.run_limits,
    "flops": flops.run_flops, "pooling": pooling.run_pooling,
    "long_text": long_text.run_long_text, "layers": layers.run_layers,
    "self_attention": self_attention.run_self_attention,
    "nonlinearity": nonlinearity.run_nonlinearity,
    "masking": masking.run_masking}


def main(argv=None):
  args = build_parser().parse_args(argv)
  try:
    COMMANDS[args.command](args)
  except InputError as e:
    raise SystemExit("error: %s" % e)
