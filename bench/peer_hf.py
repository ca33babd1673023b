"""Benchmark peer: Hugging Face transformers BERT on PyTorch.

Each configuration a competent torch user would try, each reported (the
benchmark keeps the fastest): eager, `torch.compile` (inductor), and in
inference `torch.compile` with inductor's freezing (weights folded and
prepacked for oneDNN, PyTorch's advice for CPU inference). Compiled, each
with SDPA attention (transformers' default: one CPU kernel) and with
`attn_implementation="eager"` (attention as matmuls and a softmax, which
inductor fuses with the mask and scale). On the AMX Xeon each was the
fastest in some rounds.
GELU is `gelu_pytorch_tanh` (the original's tanh approximation as torch's
one kernel, not the eager Python `gelu_new`).

train: `BertForPreTraining` (MLM labels -100 except the masked positions, NSP
labels) with torch's fused AdamW (weight decay 0.01, eps 1e-6) and grad-norm
clipping at 1.0; finetune: `BertForSequenceClassification`; bfloat16
training: `torch.autocast` (mixed precision, float32 weights and
optimizer, as torch's AMP docs teach). infer: `BertModel` under
`torch.inference_mode()`, bfloat16 with bfloat16 weights (`model.to`);
int8 (inference only): the BertModel exported by torch.onnx, fused by ONNX
Runtime's transformer optimizer (model_type bert) and quantized by its
dynamic int8, as Hugging Face users run int8 on CPU.

    python -m bench.peer_hf --mode train --config minilm
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import shapes  # pylint: disable=g-import-not-at-top
from bench import timing


INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


def ort_session(model, example, output_names, directory, optimize=False,
                quantize=True):
  """`model` (torch, taking INPUT_NAMES) exported by torch.onnx (opset 17,
  dynamic batch and sequence), fused by ONNX Runtime's transformer
  optimizer (model_type bert) where `optimize`, quantized by its dynamic
  int8 (its defaults: weights int8 per tensor) where `quantize`, as an
  ONNX Runtime session on all cores. `example`: {name: int64 tensor
  [batch, seq]}."""
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
  if optimize:
    from onnxruntime.transformers import optimizer
    optimized = optimizer.optimize_model(
        float_path, model_type="bert",
        num_heads=model.config.num_attention_heads,
        hidden_size=model.config.hidden_size)
    float_path = os.path.join(directory, "model_opt.onnx")
    optimized.save_model_to_file(float_path)
  if quantize:
    # The optimizer's fused ops have no shape inference in the quantizer:
    # their float outputs named, as its error message advises.
    quantize_dynamic(float_path, path, weight_type=QuantType.QInt8,
                     extra_options={"DefaultTensorType": 1})  # FLOAT
  else:
    path = float_path
  options = onnxruntime.SessionOptions()
  options.intra_op_num_threads = os.cpu_count()
  return onnxruntime.InferenceSession(path, options,
                                      providers=["CPUExecutionProvider"])


def build(args, compiled=False, attention="sdpa"):
  """The step function of args' mode; compiled: through torch.compile
  (int8: ONNX Runtime with its transformer optimizer; "freezing":
  torch.compile with inductor's freezing, inference only); attention:
  the models' `attn_implementation`."""
  import torch  # pylint: disable=g-import-not-at-top
  if compiled == "freezing":
    import torch._inductor.config  # pylint: disable=g-import-not-at-top
    torch._inductor.config.freezing = True  # pylint: disable=protected-access
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
      hidden_act="gelu_pytorch_tanh")  # the original's tanh GELU, one kernel
  cfg._attn_implementation = attention  # pylint: disable=protected-access
  batch = shapes.make_batch(shape, args.batch_size, args.seq_length,
                            args.num_masked)
  t = {k: torch.from_numpy(v).long().to(device) for k, v in batch.items()
       if k != "masked_lm_weights"}
  inputs = dict(input_ids=t["input_ids"], attention_mask=t["input_mask"],
                token_type_ids=t["segment_ids"])
  autocast = torch.autocast(device_type=device, dtype=torch.bfloat16,
                            enabled=(args.precision == "bfloat16" and
                                     args.mode != "infer"))
  maybe_compile = torch.compile if compiled else (lambda m: m)
  sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
  if args.mode == "infer" and args.precision == "int8":
    import tempfile  # pylint: disable=g-import-not-at-top
    model = transformers.BertModel(cfg).eval()
    session = ort_session(
        model, dict(zip(INPUT_NAMES, inputs.values())),
        ("last_hidden_state", "pooler_output"), tempfile.mkdtemp(),
        optimize=compiled)
    feeds = {n: v.numpy() for n, v in zip(INPUT_NAMES, inputs.values())}
    return lambda: session.run(None, feeds)
  if args.mode == "infer":
    dtype = torch.bfloat16 if args.precision == "bfloat16" else torch.float32
    model = maybe_compile(transformers.BertModel(cfg).to(device, dtype).eval())

    def infer_step():
      with torch.inference_mode():
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
                                weight_decay=0.01, eps=1e-6, fused=True)
  forward = maybe_compile(model)

  def train_step():
    with autocast:
      loss = forward(**inputs, **extra).loss
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
  settings = [False, True]
  if args.mode == "infer" and args.precision != "int8":
    # Last: inductor's freezing is a process-wide setting.
    settings.append("freezing")
  for compiled in settings:
    note = ("ONNX Runtime, optimizer %s" % ("on" if compiled else "off")
            if args.precision == "int8" else
            "torch.compile, freezing" if compiled == "freezing" else
            "torch.compile" if compiled else "eager")
    attentions = (["sdpa", "eager"] if compiled and args.precision != "int8"
                  else ["sdpa"])
    for attention in attentions:
      timing.report("Hugging Face (PyTorch)", args,
                    build(args, compiled, attention),
                    note=note + (", eager attention" if attention == "eager"
                                 else ""))


if __name__ == "__main__":
  main()
