"""Converts Hugging Face BERT weights to an original BERT checkpoint.

  python convert_hf_checkpoint.py --hf_dir=all-MiniLM-L6-v2 \
      --output_dir=/tmp/minilm [--exact_gelu]

writes bert_model.ckpt.{index,data-00000-of-00001}, bert_config.json and
vocab.txt, usable as --init_checkpoint / --bert_config_file / --vocab_file
by this project's scripts and by Google's original code. See
modeling/hf_import.py for the GELU choice.
"""

from absl import flags

from bert_tf2.common import cli
from modeling import hf_import
from tokenization import flags as tokenization_flags

FLAGS = flags.FLAGS


def define_flags(flag_values=flags.FLAGS):
  """Defines every convert_hf_checkpoint.py flag on `flag_values` (here:
  the original's modeling defines no script flags)."""
  fv = {"flag_values": flag_values}
  flags.DEFINE_string("hf_dir", None, "Directory with the Hugging Face model: "
                      "config.json, model.safetensors and optionally "
                      "vocab.txt.",
                      **fv)
  flags.DEFINE_string("output_dir", None, "Where to write bert_model.ckpt, "
                      "bert_config.json and vocab.txt.", **fv)
  flags.DEFINE_bool("exact_gelu", False, "Write hidden_act=gelu_exact (HF's "
                    "erf GELU) instead of gelu (the original's tanh "
                    "approximation); the original code cannot load it.", **fv)


define_flags()


def main(_):
  tokenization_flags.refuse_preserve_unused_tokens("convert_hf_checkpoint.py")
  config, names = hf_import.convert_hf_checkpoint(
      FLAGS.hf_dir, FLAGS.output_dir, exact_gelu=FLAGS.exact_gelu)
  print("wrote %d variables, hidden_act=%s, to %s"
        % (len(names), config.hidden_act, FLAGS.output_dir))


def run():
  """Console entry point: `bert-convert-hf-checkpoint ...`, the same flags as `python convert_hf_checkpoint.py ...`."""
  flags.mark_flag_as_required("hf_dir")
  flags.mark_flag_as_required("output_dir")
  cli.run(main)


if __name__ == "__main__":
  run()
