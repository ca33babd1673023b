"""Benchmark peer: Hugging Face transformers BERT on PyTorch.

train: `BertForPreTraining` (MLM labels -100 except the masked positions, NSP
labels) with torch AdamW (weight decay 0.01, eps 1e-6) and grad-norm
clipping at 1.0; finetune: `BertForSequenceClassification`; infer:
`BertModel` under `torch.inference_mode()`. bfloat16 uses `torch.autocast`;
int8 (inference only): the BertModel exported by torch.onnx and quantized
by ONNX Runtime (dynamic int8), as Hugging Face users run int8 on CPU.

    python -m bench.peer_hf --mode train --config minilm
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


def ort_int8_session(model, example, output_names, directory):
  """`model` (torch, taking INPUT_NAMES) exported by torch.onnx (opset 17,
  dynamic batch and sequence), quantized by ONNX Runtime's dynamic int8
  (its defaults: weights int8 per tensor), as an ONNX Runtime session on
  all cores. `example`: {name: int64 tensor [batch, seq]}."""
  # pylint: disable=g-import-not-at-top
  import onnxruntime
  import torch
  from onnxruntime.quantization import QuantType, quantize_dynamic
  float_path = os.path.join(directory, "model.onnx")
  path = os.path.join(directory, "model_int8.onnx")
  dynamic = {n: {0: "batch", 1: "seq"} for n in INPUT_NAMES}

  class Named(torch.nn.Module):
    """model called by keyword, its outputs a tuple in output_names' order."""

    def __init__(self):
      super().__init__()
      self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
      out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                       token_type_ids=token_type_ids)
      return tuple(out[n] for n in output_names)
  torch.onnx.export(Named().eval(), tuple(example[n] for n in INPUT_NAMES),
                    float_path, input_names=list(INPUT_NAMES),
                    output_names=list(output_names), dynamic_axes=dynamic,
                    opset_version=17, dynamo=False)
  quantize_dynamic(float_path, path, weight_type=QuantType.QInt8)
  options = onnxruntime.SessionOptions()
  options.intra_op_num_threads = os.cpu_count()
  return onnxruntime.InferenceSession(path, options,
                                      providers=["CPUExecutionProvider"])


def build(args):
  import torch  # pylint: disable=g-import-not-at-top
  import transformers  # pylint: disable=g-import-not-at-top
  device = "cuda" if args.device == "gpu" else "cpu"
  if device == "cpu":
    torch.set_num_threads(os.cpu_count())
  shape = shapes.SHAPES[args.config]
  cfg = transformers.BertConfig(
      vocab_size=shape["vocab_size"], hidden_size=shape["hidden_size"],
      num_hidden_layers=shape["num_hidden_layers"],
      num_attention_heads=shape["num_attention_heads"],
      intermediate_size=shape["intermediate_size"],
      max_position_embeddings=512, type_vocab_size=2,
      hidden_act="gelu_new")  # the original's tanh-approximate GELU
  batch = shapes.make_batch(shape, args.batch_size, args.seq_length,
                            args.num_masked)
  t = {k: torch.from_numpy(v).long().to(device) for k, v in batch.items()
       if k != "masked_lm_weights"}
  inputs = dict(input_ids=t["input_ids"], attention_mask=t["input_mask"],
                token_type_ids=t["segment_ids"])
  autocast = torch.autocast(device_type=device, dtype=torch.bfloat16,
                            enabled=args.precision == "bfloat16")
  sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
  if args.mode == "infer" and args.precision == "int8":
    import tempfile  # pylint: disable=g-import-not-at-top
    model = transformers.BertModel(cfg).eval()
    session = ort_int8_session(
        model, dict(zip(INPUT_NAMES, inputs.values())),
        ("last_hidden_state", "pooler_output"), tempfile.mkdtemp())
    feeds = {n: v.numpy() for n, v in zip(INPUT_NAMES, inputs.values())}
    return lambda: session.run(None, feeds)
  if args.mode == "infer":
    model = transformers.BertModel(cfg).to(device).eval()

    def infer_step():
      with torch.inference_mode(), autocast:
        out = model(**inputs)
        out.last_hidden_state.float().cpu(), out.pooler_output.float().cpu()
    return infer_step
  if args.mode == "train":
    model = transformers.BertForPreTraining(cfg).to(device).train()
    labels = torch.full_like(t["input_ids"], -100)
    labels.scatter_(1, t["masked_lm_positions"], t["masked_lm_ids"])
    extra = dict(labels=labels,
                 next_sentence_label=t["next_sentence_labels"][:, 0])
  else:
    cfg.num_labels = 2
    model = transformers.BertForSequenceClassification(cfg).to(device).train()
    extra = dict(labels=t["label_ids"])
  optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4,
                                weight_decay=0.01, eps=1e-6)

  def train_step():
    with autocast:
      loss = model(**inputs, **extra).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    loss.item()
    sync()
  return train_step


def main():
  args = timing.peer_arg_parser(__doc__).parse_args()
  if timing.skip_int8_training(args):
    return
  timing.report("Hugging Face (PyTorch)", args, build(args))


if __name__ == "__main__":
  main()
